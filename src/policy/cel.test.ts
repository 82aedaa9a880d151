import { describe, expect, it } from 'vitest';
import { celLiteral, celString, isPlainFieldName, optionalField } from './cel.ts';
import { concat } from './compile-classifiers.ts';

describe('celLiteral', () => {
  it('writes JSON values as CEL literals, strings escaped', () => {
    expect(celLiteral({ a: [1, 'x"y'], b: true })).toBe('{"a": [1, "x\\"y"], "b": true}');
    expect(celString('tab\tand\u2028')).toBe('"tab\\tand\u2028"');
  });

  it('refuses what CEL would read as another type: fractions and unsafe integers', () => {
    expect(celLiteral(1.5)).toBeUndefined();
    expect(celLiteral(2 ** 53)).toBeUndefined();
    expect(celLiteral([1, 0.5])).toBeUndefined();
  });
});

describe('field names and paths', () => {
  it('writes only identifiers that are not CEL reserved words', () => {
    expect(['spec', 'readReplicas', '_x1'].every(isPlainFieldName)).toBe(true);
    expect(['namespace', 'in', 'x-y', '1a', 'a.b'].some(isPlainFieldName)).toBe(false);
  });

  it('chains optional field reads', () => {
    expect(optionalField('oldObject.?spec', ['storage', 'size'])).toBe('oldObject.?spec.?storage.?size');
  });
});

describe('concat', () => {
  it('joins adjacent literals and keeps expressions apart', () => {
    expect(concat('"a"', '"b"', 'x', '"c"')).toBe('"ab" + x + "c"');
    expect(concat()).toBe('""');
  });
});
