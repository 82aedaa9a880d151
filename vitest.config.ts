import { defineConfig } from 'vitest/config';
import { e2eLanes } from './test/e2e/lanes.ts';
import LongestFirstSequencer from './test/longest-first-sequencer.ts';

export default defineConfig({
  test: {
    // As many test files at once as there are e2e lanes (test/e2e/lanes.ts): unit and integration files fill a
    // worker whenever no e2e file needs it, and two e2e files that run at once each have a control plane of their own.
    maxWorkers: e2eLanes(),
    sequence: { sequencer: LongestFirstSequencer },
    // Property tests draw from a fixed seed unless asked for new cases (test/fuzz-seed.ts, `npm run fuzz`).
    setupFiles: ['test/fuzz-seed.ts'],
    projects: [
      {
        extends: true,
        // Tests of check and contractTester start the API server engine in their first call: about a second alone,
        // many more when the unit files run two at a time on two cores beside a build. A hang still fails.
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/repo/**/*.test.ts', 'test/tools/**/*.test.ts'],
          testTimeout: 30_000,
          // The engine and the controller-runtime peer, built before any test file runs (test/tools/).
          globalSetup: ['test/tools/tools-setup.ts'],
        },
      },
      {
        extends: true,
        // The engine runs natively wherever Go built it, so the unit project asks the native one; these files ask
        // the WebAssembly one too, which a tarball install runs (engine-agreement.test.ts compares the two).
        test: {
          name: 'wasm',
          include: [
            'src/api-server-engine/engine.test.ts',
            'src/api-server-engine/engine-choice.test.ts',
            'src/api-server-engine/contract-crd.test.ts',
            'src/check/check-object.test.ts',
          ],
          env: { CRDGATE_ENGINE: 'wasm' },
          testTimeout: 30_000,
          globalSetup: ['test/tools/tools-setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], testTimeout: 30_000 },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Every tool built first (test/tools/); then a control plane per lane, crdgate packed once for the tests that
          // install it as a user would, and a folder for what the files build once and share (crdgate's image).
          globalSetup: [
            'test/tools/tools-setup.ts',
            'test/e2e/global-setup.ts',
            'test/e2e/pack-setup.ts',
            'test/e2e/run-scratch-setup.ts',
          ],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
