import { describe, expect, it } from 'vitest';
import { overlay, presentFields, splitFields } from './lossless-fields.ts';

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

describe('overlay', () => {
  it('merges objects field by field, at every depth', () => {
    expect(overlay({ storage: { class: 'ssd' }, extra: 1 }, { storage: { size: '1Gi' }, replicas: 2 })).toEqual({
      storage: { class: 'ssd', size: '1Gi' },
      extra: 1,
      replicas: 2,
    });
  });

  it('lets what is shown win over what was lost', () => {
    expect(overlay({ size: '1536Mi' }, { size: '2Gi' })).toEqual({ size: '2Gi' });
    expect(overlay({ storage: { size: 'x' } }, { storage: 'not an object' })).toEqual({ storage: 'not an object' });
    expect(overlay('stale', { size: 1 })).toEqual({ size: 1 });
  });

  it('keeps what was lost where nothing is shown', () => {
    expect(overlay({ a: 1 }, undefined)).toEqual({ a: 1 });
    const shown = { a: 1 };
    expect(overlay(undefined, shown)).toBe(shown);
  });

  it('does not modify its arguments', () => {
    const lost = Object.freeze({ a: Object.freeze({ b: 1 }) });
    const shown = Object.freeze({ a: Object.freeze({ c: 2 }) });
    expect(overlay(lost, shown)).toEqual({ a: { b: 1, c: 2 } });
  });
});

describe('presentFields', () => {
  it('drops undefined fields and keeps every JSON value, falsy ones included', () => {
    const fields = presentFields({ a: undefined, b: null, c: 0, d: '', e: false, f: [] });
    expect(fields).toStrictEqual({ b: null, c: 0, d: '', e: false, f: [] });
    expect('a' in fields).toBe(false);
  });
});
