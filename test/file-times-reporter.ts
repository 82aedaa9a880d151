import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Writes each test file's whole time (its import, its hooks and its tests) to the file `CRDGATE_FILE_TIMES` names:
 * vitest's JSON report times a file by its tests alone, and an e2e file's work is mostly in its beforeAll. `.ci/run`
 * lists the slowest files from it.
 */
export default class FileTimesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const output = process.env['CRDGATE_FILE_TIMES'];
    if (output === undefined || output === '') return;
    const times = testModules.map((testModule) => {
      const { collectDuration, setupDuration, duration } = testModule.diagnostic();
      return {
        file: relative(process.cwd(), testModule.moduleId),
        seconds: (collectDuration + setupDuration + duration) / 1000,
      };
    });
    writeFileSync(output, JSON.stringify(times));
  }
}
