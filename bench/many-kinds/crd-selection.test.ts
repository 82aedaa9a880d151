import { describe, expect, it } from 'vitest';
import { selectCrds, type CrdCandidate } from './crd-selection.ts';

const crd = (id: string, project: string, bytes: number, hubSamples = 0): CrdCandidate => ({
  id,
  project,
  bytes,
  hubSamples,
});

describe("the --many-kinds mode's choice of CRDs", () => {
  it('takes from each project the kind with the most samples in its hub version, then the larger, then by name', () => {
    const chosen = selectCrds(
      [
        crd('small-documented.a', 'A', 10, 5),
        crd('large-undocumented.a', 'A', 900, 0),
        crd('one.b', 'B', 50, 2),
        crd('two.b', 'B', 70, 2),
        crd('zeta.c', 'C', 30),
        crd('alpha.c', 'C', 30),
      ],
      3,
    );
    expect(chosen.map((each) => each.id).sort()).toEqual(['alpha.c', 'small-documented.a', 'two.b']);
  });

  it('orders them so that every three in a row hold one of the middle, the largest and the smallest third', () => {
    // Nine projects of one CRD each, sizes 1 to 9 (in bytes): the thirds are 1-3, 4-6 and 7-9, each in name order.
    const sizes = { p: 5, q: 8, r: 2, s: 9, t: 1, u: 6, v: 3, w: 4, x: 7 };
    const candidates = Object.entries(sizes).map(([name, bytes]) => crd(`${name}.example.com`, name, bytes));
    const order = selectCrds(candidates, 9).map((each) => each.bytes);
    // middle third by name: p(5) u(6) w(4); largest: q(8) s(9) x(7); smallest: r(2) t(1) v(3).
    expect(order).toEqual([5, 8, 2, 6, 9, 1, 4, 7, 3]);
    expect(selectCrds(candidates, 4).map((each) => each.bytes)).toEqual([5, 8, 2, 6]);
  });

  it('gives the same list whatever order the corpus lists its CRDs in', () => {
    const candidates = Array.from({ length: 12 }, (_, index) =>
      crd(`kind${index}.example.com`, `project${index % 7}`, (index * 37) % 101, index % 3),
    );
    const ids = (list: CrdCandidate[]) => selectCrds(list, 7).map((each) => each.id);
    expect(ids([...candidates].reverse())).toEqual(ids(candidates));
  });

  it('refuses more kinds than there are projects to take one from', () => {
    expect(() => selectCrds([crd('a.x', 'X', 1), crd('b.x', 'X', 2), crd('c.y', 'Y', 3)], 3)).toThrow(
      /3 kinds asked for, but the corpus has 2 projects/,
    );
  });
});
