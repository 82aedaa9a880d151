import { describe, expect, it } from 'vitest';
import {
  and,
  call,
  celLiteral,
  celString,
  concat,
  cond,
  eq,
  has,
  ident,
  index,
  int,
  isIn,
  isPlainFieldName,
  list,
  member,
  method,
  not,
  optionalField,
  or,
  plus,
  str,
} from './cel.ts';

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
    expect(optionalField(ident('oldObject'), ['spec', 'storage', 'size']).text).toBe('oldObject.?spec.?storage.?size');
  });
});

describe('concat', () => {
  it('joins adjacent literals and keeps expressions apart', () => {
    expect(concat(str('a'), str('b'), ident('x'), str('c')).text).toBe('"ab" + x + "c"');
    expect(concat().text).toBe('""');
    expect(concat(str('a: '), concat(ident('x'), str('!')), str('?')).text).toBe('"a: " + x + "!?"');
  });
});

describe('the builder: precedence is the structure', () => {
  const [a, b, c] = [ident('a'), ident('b'), ident('c')];

  it('parenthesises an operand only where it binds more loosely than its place', () => {
    expect(and(or(a, b), c).text).toBe('(a || b) && c');
    expect(or(and(a, b), c).text).toBe('a && b || c');
    expect(and(a, and(b, c)).text).toBe('a && b && c');
    expect(not(and(a, b)).text).toBe('!(a && b)');
    expect(not(member(a, 'x')).text).toBe('!a.x');
    expect(eq(plus(a, b), c).text).toBe('a + b == c');
    expect(plus(a, plus(b, c)).text).toBe('a + (b + c)');
    expect(plus(cond(a, int(1), int(0)), b).text).toBe('(a ? 1 : 0) + b');
    expect(method(or(a, b), 'size').text).toBe('(a || b).size()');
    expect(index(plus(a, b), int(0)).text).toBe('(a + b)[0]');
    expect(isIn(a, list([str('x')])).text).toBe('a in ["x"]');
  });

  it('nests conditionals to the right bare, elsewhere in parentheses', () => {
    expect(cond(a, b, cond(c, a, b)).text).toBe('a ? b : c ? a : b');
    expect(cond(cond(a, b, c), a, b).text).toBe('(a ? b : c) ? a : b');
    expect(cond(a, cond(b, c, a), b).text).toBe('a ? (b ? c : a) : b');
  });

  it('writes calls, has() and negative literals', () => {
    expect(call('optional.of', [a]).text).toBe('optional.of(a)');
    expect(has(a, 'spec').text).toBe('has(a.spec)');
    expect(member(int(-1), 'x').text).toBe('(-1).x');
    expect(() => ident('a-b')).toThrow();
    expect(() => int(0.5)).toThrow();
  });

  it('quotes strings as CEL reads them: a lone surrogate, which CEL refuses as an escape, becomes U+FFFD', () => {
    expect(str('a"b\\c\n').text).toBe('"a\\"b\\\\c\\n"');
    expect(str('\ud800').text).toBe('"\ufffd"');
  });
});
