import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        // Tests of check and contractTester start the API server engine in their first call: about a second alone,
        // many more when the unit files run two at a time on two cores beside a build. A hang still fails.
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'test/repo/**/*.test.ts', 'test/tools/**/*.test.ts'],
          // The engine and the controller-runtime peer, built before any test file runs (test/tools/).
          globalSetup: ['test/tools/tools-setup.ts'],
          testTimeout: 30_000,
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
          // Every tool built first (test/tools/); then the control plane, and crdgate packed once for the tests that
          // install it as a user would.
          globalSetup: ['test/tools/tools-setup.ts', 'test/e2e/global-setup.ts', 'test/e2e/pack-setup.ts'],
          // One control plane serves every e2e file; running them one at a time keeps 2 cores from thrashing.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
