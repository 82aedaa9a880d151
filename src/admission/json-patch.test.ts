import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, createJsonPatch } from './json-patch.ts';

describe('createJsonPatch', () => {
  it('adds, replaces and removes with RFC 6901 escaping', () => {
    const patch = createJsonPatch(
      { a: 1, gone: true, labels: { 'x/y': 'old' }, list: [1, 2] },
      { a: 2, labels: { 'x/y': 'new', 'a~b': 'added' }, list: [1, 2, 3] },
    );
    expect(patch).toEqual([
      { op: 'remove', path: '/gone' },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'replace', path: '/labels/x~1y', value: 'new' },
      { op: 'add', path: '/labels/a~0b', value: 'added' },
      { op: 'replace', path: '/list', value: [1, 2, 3] },
    ]);
  });

  it('is empty for equal documents regardless of key order', () => {
    expect(createJsonPatch({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toEqual([]);
  });

  it('turns any document into any other (property)', () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(json, json, (before, after) => {
        const normalized = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
        const a = normalized(before);
        const b = normalized(after);
        expect(applyJsonPatch(a, createJsonPatch(a, b))).toEqual(b);
      }),
      { numRuns: 2000 },
    );
  });
});
