import type { TestProject } from 'vitest/node';
import { buildSuiteTools, type SuiteProject } from './suite-tools.ts';

// A vitest global setup: the project's tools built before any of its test files runs (vitest runs every project's
// global setup before the first test file of the run).
export default async function setup(project: TestProject): Promise<void> {
  await buildSuiteTools([project.name as SuiteProject], (line) => process.stderr.write(`[tools] ${line}\n`));
}
