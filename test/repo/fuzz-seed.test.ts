import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The values a property is handed, in the order it is handed them. */
function drawn(): number[] {
  const values: number[] = [];
  fc.assert(
    fc.property(fc.integer(), (value) => {
      values.push(value);
    }),
    { numRuns: 20 },
  );
  return values;
}

describe('property tests under npm test (test/fuzz-seed.ts)', () => {
  it.runIf(process.env['CRDGATE_FUZZ_SEED'] === undefined)(
    'draw the same cases on every run, from the fixed seed',
    () => {
      expect(fc.readConfigureGlobal().seed).toBe(20261129);
      expect(drawn()).toEqual(drawn());
    },
  );
});
