import { describe, expect, it } from 'vitest';
import { compareDocumentPositions, createDocumentPositions } from './document-order.ts';
import type { PathSegment } from '../values/field-path.ts';

describe('document order', () => {
  const data = { spec: { zeta: 1, alpha: { b: 1, a: 2 }, list: [{}, {}, {}] } };
  const positionOf = createDocumentPositions(data);
  const sorted = (paths: PathSegment[][]) =>
    [...paths].sort((a, b) => compareDocumentPositions(positionOf(a), positionOf(b)));

  it('orders keys as the object lists them, not alphabetically', () => {
    expect(
      sorted([
        ['spec', 'alpha', 'a'],
        ['spec', 'zeta'],
        ['spec', 'alpha', 'b'],
      ]),
    ).toEqual([
      ['spec', 'zeta'],
      ['spec', 'alpha', 'b'],
      ['spec', 'alpha', 'a'],
    ]);
  });

  it('orders indexes numerically and parents before children', () => {
    expect(
      sorted([
        ['spec', 'list', 10],
        ['spec', 'list', 2, 'x'],
        ['spec', 'list'],
        ['spec', 'list', 2],
      ]),
    ).toEqual([
      ['spec', 'list'],
      ['spec', 'list', 2],
      ['spec', 'list', 2, 'x'],
      ['spec', 'list', 10],
    ]);
  });

  it('puts absent keys after present ones and keeps their relative order', () => {
    expect(
      sorted([
        ['spec', 'missing2'],
        ['spec', 'zeta'],
        ['spec', 'missing1'],
        ['spec', 'list'],
      ]),
    ).toEqual([
      ['spec', 'zeta'],
      ['spec', 'list'],
      ['spec', 'missing2'],
      ['spec', 'missing1'],
    ]);
  });

  it('copes with paths through values that are not containers', () => {
    expect(positionOf(['spec', 'zeta', 'deeper', 3])).toEqual([0, 0, Number.POSITIVE_INFINITY, 3]);
  });
});
