// What the --many-kinds figures say against issue 55's targets for one crdgate guarding many kinds, each as a
// ratio to the built-in example measured in the same run (absolute figures on a shared machine move between runs).

/**
 * example: no --contract, the built-in GeoDatabase; example-module: the same as a TypeScript --contract module;
 * external: guards of operators' CRDs (`fromCrd(crd, { crdOwner: 'external' })`) with no API server;
 * external-live: the same guards beside an API server that holds those CRDs; owned: contracts that own them.
 */
export type Series = 'example' | 'example-module' | 'external' | 'external-live' | 'owned';

export interface MeasuredRow {
  series: Series;
  /** --contract modules (0 for the built-in example). */
  contracts: number;
  kinds: number;
  /** The CRDs' YAML, as their projects publish them (0 for the example, whose schemas are TypeScript). */
  yamlBytes: number;
  readyMs: number;
  readyRssBytes: number;
  loadedRssBytes: number;
  /** The most the server held from its start to the end of the load (VmHWM): what a memory limit must allow. */
  peakRssBytes: number;
  cpuMicrosPerReview: number;
  /** Versions whose schema the server had compiled into a validator after the load (crdgate_schema_validators_compiled). */
  validatorsCompiled: number;
  /** external-live: versions whose live CRD differs from the contract's copy, as the follower read them. */
  driftedVersions?: number;
}

export interface DerivedRow extends MeasuredRow {
  readyRatio: number;
  readyRssRatio: number;
  loadedRssRatio: number;
  /**
   * RSS when ready, per kind added since the series' previous row (undefined for its first: from the example to
   * one contract, a kind is replaced, not added, and what changes is what any contract module loads).
   */
  addedKindBytes?: number;
}

export interface Target {
  goal: string;
  measured: string;
  verdict: 'met' | 'NOT MET' | 'not measured';
}

/** The count of kinds at which the ready time and RSS are held to a ratio of the example's, and that ratio. */
export const manyKindsTargetCount = 14;
export const manyKindsRatioLimit = 1.5;
const growthLimitBytes = 5_000_000;
const growthUpTo = 30;

/** Each row against the example's row, and against the row before it in its series. */
export function deriveRows(rows: readonly MeasuredRow[]): DerivedRow[] {
  const baseline = rows.find((row) => row.series === 'example');
  if (!baseline) throw new Error('no row of the built-in example to compare with');
  const previous = new Map<Series, MeasuredRow>();
  return rows.map((row) => {
    const before = previous.get(row.series);
    previous.set(row.series, row);
    const added = before ? row.kinds - before.kinds : 0;
    return {
      ...row,
      readyRatio: row.readyMs / baseline.readyMs,
      readyRssRatio: row.readyRssBytes / baseline.readyRssBytes,
      loadedRssRatio: row.loadedRssBytes / baseline.loadedRssBytes,
      ...(before && added > 0 ? { addedKindBytes: (row.readyRssBytes - before.readyRssBytes) / added } : {}),
    };
  });
}

/**
 * Issue 55's targets for one series: with 14 CRDs, ready within 1.5x the example's time and its RSS within 1.5x
 * the example's; RSS growing by less than 5 MB per kind added, from the series' first row to its last up to 30
 * kinds, both when ready and after the load (the pod holds the larger).
 */
export function manyKindsTargets(rows: readonly DerivedRow[], series: Series): Target[] {
  const inSeries = rows.filter((row) => row.series === series).sort((a, b) => a.kinds - b.kinds);
  const at = inSeries.find((row) => row.kinds === manyKindsTargetCount);
  const notMeasured = (goal: string, why: string): Target => ({ goal, measured: why, verdict: 'not measured' });
  const ratioTarget = (goal: string, ratio: (row: DerivedRow) => number, detail: (row: DerivedRow) => string) =>
    at
      ? {
          goal,
          measured: `${ratio(at).toFixed(2)}x (${detail(at)})`,
          verdict: ratio(at) <= manyKindsRatioLimit ? ('met' as const) : ('NOT MET' as const),
        }
      : notMeasured(goal, `no row of ${manyKindsTargetCount} kinds`);
  const readyGoal = `${manyKindsTargetCount} CRDs ready within ${manyKindsRatioLimit}x the example's time`;
  const rssGoal = `${manyKindsTargetCount} CRDs' RSS when ready within ${manyKindsRatioLimit}x the example's`;
  const growthGoal = `RSS growth < ${growthLimitBytes / 1e6} MB per added kind, up to ${growthUpTo}`;
  const upTo = inSeries.filter((row) => row.kinds <= growthUpTo);
  const first = upTo[0];
  const last = upTo.at(-1);
  const growth =
    first && last && last.kinds > first.kinds
      ? (() => {
          const perKind = (bytes: (row: DerivedRow) => number) =>
            (bytes(last) - bytes(first)) / (last.kinds - first.kinds);
          const ready = perKind((row) => row.readyRssBytes);
          const loaded = perKind((row) => row.loadedRssBytes);
          return {
            goal: growthGoal,
            measured: `${mb(ready)} MB when ready, ${mb(loaded)} MB after the load (${first.kinds} to ${last.kinds} kinds)`,
            verdict: Math.max(ready, loaded) < growthLimitBytes ? ('met' as const) : ('NOT MET' as const),
          };
        })()
      : notMeasured(growthGoal, 'fewer than two rows of 1 to 30 kinds');
  return [
    ratioTarget(
      readyGoal,
      (row) => row.readyRatio,
      (row) => `${seconds(row.readyMs)} s`,
    ),
    ratioTarget(
      rssGoal,
      (row) => row.readyRssRatio,
      (row) => `${mib(row.readyRssBytes)} MiB`,
    ),
    growth,
  ];
}

export const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
export const seconds = (ms: number): string => (ms / 1000).toFixed(2);
const mb = (bytes: number): string => (bytes / 1e6).toFixed(2);
