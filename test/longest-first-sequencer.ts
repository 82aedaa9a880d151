import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// vitest runs as many files at once as there are e2e lanes; the run ends when the last of them does. Started longest
// first, whatever their project, the short files (most of them unit files) fill the lanes at the end, and no lane is
// left with a long file after the others have run out (longest-processing-time-first, within 4/3 of the best order).

/**
 * Seconds the slowest files took on a quiet 2-core machine (`.ci/run` prints the slowest 15): what orders a run that
 * has no earlier run of its own to go by (a fresh clone, as CI has). Only the order they give matters.
 */
const KNOWN_SECONDS: Readonly<Record<string, number>> = {
  // 327 s in a quiet CI run (671 to 823 s alone on a machine busy with other work): the longest file by far.
  'test/e2e/crd-corpus.e2e.test.ts': 330,
  'test/e2e/init.e2e.test.ts': 300,
  'test/e2e/workloads-as-kubelet.e2e.test.ts': 250,
  'test/e2e/revision-differential.e2e.test.ts': 230,
  'test/e2e/migrate-shards.e2e.test.ts': 85,
  'test/e2e/controller-gen-fixtures.e2e.test.ts': 75,
  'test/e2e/policy-budgets.e2e.test.ts': 70,
  'test/e2e/migrate-priority-and-fairness.e2e.test.ts': 70,
  'test/e2e/package.e2e.test.ts': 65,
  'test/e2e/migrate.e2e.test.ts': 65,
  'test/e2e/crd-gate-image.e2e.test.ts': 60,
  'test/e2e/webhook-oracle.e2e.test.ts': 90,
  'test/e2e/dev.e2e.test.ts': 45,
  'test/e2e/older-version-writes.e2e.test.ts': 30,
};

/** What a file with no figure is taken to last: an e2e file talks to an API server, the others mostly do not. */
const DEFAULT_SECONDS: Readonly<Record<string, number>> = { e2e: 15, integration: 2, unit: 2 };

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (spec: TestSpecification): number => {
      const path = relative(this.ctx.config.root, spec.moduleId);
      // vitest's own record of this machine's last run, where there is one: the truest figure.
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (cached && cached.duration > 0) return cached.duration / 1000;
      return KNOWN_SECONDS[path] ?? DEFAULT_SECONDS[spec.project.name] ?? 2;
    };
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
