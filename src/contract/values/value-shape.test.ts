import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countValues, nestedDeeperThan, pathDeeperThan } from './value-shape.ts';

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
    expect(
      countValues(
        Array.from({ length: 1_000_000 }, () => 0),
        10,
      ),
    ).toBe(11);
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

describe('nestedDeeperThan', () => {
  it('agrees with pathDeeperThan on every shape, at every depth limit', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'large', withCrossShrink: true },
        fc.constant(null),
        fc.integer(),
        fc.string(),
        tie('array'),
        tie('object'),
      ),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 4 }),
    })).value;
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 8 }), (value, maxDepth) => {
        expect(nestedDeeperThan(value, maxDepth)).toBe(pathDeeperThan(value, maxDepth) !== undefined);
      }),
      { numRuns: 2_000 },
    );
  });

  it('answers for 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nested(100_000), 256)).toBe(true);
    expect(nestedDeeperThan(nested(256), 256)).toBe(false);
  });
});
