import { describe, expect, it } from 'vitest';
import { splitFields } from './split-fields.ts';

describe('splitFields', () => {
  it('separates the known fields from the others', () => {
    expect(splitFields({ name: 'a', memory: '1Gi', version: '7.2' }, ['name', 'memory'])).toEqual({
      shown: { name: 'a', memory: '1Gi' },
      lost: { version: '7.2' },
    });
  });

  it('reports no lost part when every field is known', () => {
    expect(splitFields({ name: 'a' }, ['name', 'memory'])).toStrictEqual({ shown: { name: 'a' } });
    expect(splitFields({}, ['name'])).toStrictEqual({ shown: {} });
  });

  it('shows a value that is not an object as it is', () => {
    expect(splitFields('text', ['name'])).toStrictEqual({ shown: 'text' });
    expect(splitFields([1], ['name'])).toStrictEqual({ shown: [1] });
    expect(splitFields(undefined, ['name'])).toStrictEqual({ shown: undefined });
  });
});
