import { describe, expect, it } from 'vitest';
import { deriveRows, manyKindsTargets, type MeasuredRow, type Series } from './many-kinds-targets.ts';

const MiB = 2 ** 20;

const row = (
  series: Series,
  kinds: number,
  readyMs: number,
  readyRssMiB: number,
  loadedRssMiB: number,
): MeasuredRow => ({
  series,
  contracts: series === 'example' ? 0 : kinds,
  kinds,
  yamlBytes: 0,
  readyMs,
  readyRssBytes: readyRssMiB * MiB,
  loadedRssBytes: loadedRssMiB * MiB,
  peakRssBytes: loadedRssMiB * MiB,
  cpuMicrosPerReview: 100,
  validatorsCompiled: 0,
});

const example = row('example', 1, 400, 100, 110);

describe("the --many-kinds figures against issue 55's targets", () => {
  it('puts each row against the example, and its RSS growth against the row before it in its series', () => {
    const rows = deriveRows([
      example,
      row('external', 1, 600, 160, 170),
      row('owned', 1, 500, 140, 150),
      row('external', 4, 1000, 172, 180),
    ]);
    expect(rows.map((each) => [each.readyRatio, each.readyRssRatio, each.loadedRssRatio])).toEqual([
      [1, 1, 1],
      [1.5, 1.6, 170 / 110],
      [1.25, 1.4, 150 / 110],
      [2.5, 1.72, 180 / 110],
    ]);
    // From one contract to four, 12 MiB more: 4 MiB per added kind; the first row of a series has no kind added.
    expect(rows.map((each) => each.addedKindBytes)).toEqual([undefined, undefined, undefined, 4 * MiB]);
  });

  it('marks each target met or not at 14 kinds, and the growth from the first row of the series to the last up to 30', () => {
    const rows = deriveRows([
      example,
      row('external', 1, 500, 120, 130),
      row('external', 14, 600, 150, 170),
      row('external', 30, 900, 190, 210),
      // Past 30 kinds: not part of the growth target.
      row('external', 40, 5000, 900, 900),
    ]);
    const targets = manyKindsTargets(rows, 'external');
    expect(targets.map((target) => target.verdict)).toEqual(['met', 'met', 'met']);
    expect(targets[0]!.measured).toMatch(/^1\.50x/);
    expect(targets[1]!.measured).toMatch(/^1\.50x/);
    // 70 MiB over 29 kinds when ready, 80 MiB after the load: 2.53 and 2.89 MB per kind.
    expect(targets[2]!.measured).toBe('2.53 MB when ready, 2.89 MB after the load (1 to 30 kinds)');
  });

  it('fails a target just past its limit, and the growth on the larger of its two figures', () => {
    // 601 ms is 1.5025x the example's 400, 150.1 MiB 1.501x its 100; after the load 62.1 MiB over 13 kinds is 5.01 MB
    // a kind (4.78 MiB), when ready 30.1 MiB only 2.43 MB.
    const rows = deriveRows([example, row('external', 1, 500, 120, 130), row('external', 14, 601, 150.1, 192.1)]);
    const targets = manyKindsTargets(rows, 'external');
    expect(targets.map((target) => target.verdict)).toEqual(['NOT MET', 'NOT MET', 'NOT MET']);
    expect(targets[2]!.measured).toBe('2.43 MB when ready, 5.01 MB after the load (1 to 14 kinds)');
    // 4.7 MiB a kind both ways is 4.93 MB: within 5 MB.
    const within = deriveRows([example, row('external', 1, 500, 120, 130), row('external', 11, 500, 167, 177)]);
    expect(manyKindsTargets(within, 'external')[2]!.verdict).toBe('met');
  });

  it('judges the guards beside an API server on their own rows, apart from the guards without one', () => {
    // The same counts in both series: without an API server 9 MiB more a kind after the load (each kind's validators
    // compiled); beside one 1 MiB (none compiled), from a start 40 MiB higher (client-node, for the kubeconfig).
    const rows = deriveRows([
      example,
      row('external', 1, 500, 120, 130),
      row('external-live', 1, 520, 160, 170),
      row('external', 14, 600, 150, 247),
      row('external-live', 14, 620, 190, 183),
      row('external', 30, 900, 190, 391),
      row('external-live', 30, 950, 230, 199),
    ]);
    expect(rows.map((each) => each.addedKindBytes && each.addedKindBytes / MiB)).toEqual([
      undefined,
      undefined,
      undefined,
      30 / 13,
      30 / 13,
      40 / 16,
      40 / 16,
    ]);
    const [, , growth] = manyKindsTargets(rows, 'external-live');
    // 29 MiB over 29 kinds after the load: 1.05 MB a kind; 70 MiB when ready: 2.53 MB.
    expect(growth).toEqual({
      goal: 'RSS growth < 5 MB per added kind, up to 30',
      measured: '2.53 MB when ready, 1.05 MB after the load (1 to 30 kinds)',
      verdict: 'met',
    });
    // 261 MiB over 29 kinds: 9.44 MB a kind.
    expect(manyKindsTargets(rows, 'external')[2]!.verdict).toBe('NOT MET');
    expect(manyKindsTargets(rows, 'external-live')[1]!.measured).toBe('1.90x (190.0 MiB)');
  });

  it('says what was not measured rather than judging it', () => {
    const targets = manyKindsTargets(deriveRows([example, row('owned', 4, 800, 150, 160)]), 'owned');
    expect(targets.map((target) => target.verdict)).toEqual(['not measured', 'not measured', 'not measured']);
    expect(() => deriveRows([row('external', 1, 500, 120, 130)])).toThrow(/built-in example/);
  });
});
