import { describe, expect, it } from 'vitest';
import { presentFields } from './present-fields.ts';

describe('presentFields', () => {
  it('drops undefined fields and keeps every JSON value, falsy ones included', () => {
    const fields = presentFields({ a: undefined, b: null, c: 0, d: '', e: false, f: [] });
    expect(fields).toStrictEqual({ b: null, c: 0, d: '', e: false, f: [] });
    expect('a' in fields).toBe(false);
  });
});
