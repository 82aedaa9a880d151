import { expect } from 'vitest';

/**
 * The counts under their floors, each named: a count missing from `counts` is 0. Counts without a floor may grow or
 * come and go freely.
 */
export function countsUnderFloors(
  counts: Readonly<Record<string, number>>,
  floors: Readonly<Record<string, number>>,
): string[] {
  return Object.entries(floors)
    .filter(([name, floor]) => (counts[name] ?? 0) < floor)
    .map(([name, floor]) => `${name}: ${counts[name] ?? 0}, under its floor of ${floor}`);
}

/**
 * A generated proof holds only while it generates: with its generator cut to nothing, "no case disagrees" still
 * passes. So each count a run makes (its cases, per kind of case, allowed and refused) is held to a floor set a
 * little under what a run gives today, and a generator cut short, a base object the API server refuses, or a kind
 * of case that no longer comes up fails the test.
 */
export function expectFloors(
  what: string,
  counts: Readonly<Record<string, number>>,
  floors: Readonly<Record<string, number>>,
): void {
  expect(
    countsUnderFloors(counts, floors),
    `${what}: fewer cases than a run gives today (${JSON.stringify(counts)})`,
  ).toEqual([]);
}
