import { describe, expect, it } from 'vitest';
import { countValues, pathDeeperThan } from './value-shape.ts';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

describe('countValues', () => {
  it('counts objects, arrays and scalars', () => {
    expect(countValues({ a: [1, 2, { b: null }] }, 100)).toBe(6);
    expect(countValues('x', 100)).toBe(1);
  });

  it('stops once the count passes the limit', () => {
    expect(countValues(Array.from({ length: 1_000_000 }, () => 0), 10)).toBe(11);
  });
});

describe('pathDeeperThan', () => {
  it('finds nothing in a value within the depth', () => {
    expect(pathDeeperThan(nested(10), 10)).toBeUndefined();
    expect(pathDeeperThan({ a: 1, b: 'x' }, 1)).toBeUndefined();
    expect(pathDeeperThan({ a: 1, b: [] }, 1)).toEqual(['b']);
  });

  it('names the path to the first place past the depth, without recursion (100,000 levels)', () => {
    expect(pathDeeperThan(nested(11), 10)).toEqual(['a', 0, 'a', 0, 'a', 0, 'a', 0, 'a', 0]);
    expect(pathDeeperThan(nested(100_000), 256)).toHaveLength(256);
  });
});
