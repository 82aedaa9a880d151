/** Nearest-rank percentile (p in 0..100) of values sorted ascending. */
export function percentile(sortedAscending: ArrayLike<number>, p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedAscending.length);
  return sortedAscending[Math.min(sortedAscending.length, Math.max(1, rank)) - 1]!;
}
