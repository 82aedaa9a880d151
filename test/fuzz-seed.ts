import fc from 'fast-check';

// The cases of a property test are drawn from a seed. `npm test` draws every property's cases from one fixed seed,
// so that a run is the same run wherever it happens: CI fails or passes on the code, not on the draw, and a failure
// fails again on a rerun. `npm run fuzz` draws new cases each time (CRDGATE_FUZZ_SEED=random), and a failure prints
// the seed and path that replay it (CRDGATE_FUZZ_SEED=<seed>, or the seed and path as fc.assert's parameters).
const asked = process.env['CRDGATE_FUZZ_SEED'];
if (asked !== 'random') {
  const seed = Number(asked ?? 20261129);
  if (!Number.isSafeInteger(seed)) throw new Error(`CRDGATE_FUZZ_SEED must be an integer or "random", got ${asked}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
