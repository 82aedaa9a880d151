// npm run test:tools [-- --project unit|integration|e2e ...]: builds every tool the test suite runs (or those of the
// named projects) from Go modules, as the test run's setup does, and exits 1 when one cannot be had.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildSuiteTools, type SuiteProject } from './suite-tools.ts';

const PROJECTS: readonly SuiteProject[] = ['unit', 'wasm', 'integration', 'e2e'];

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { project: { type: 'string', multiple: true } } });
  const projects = (values.project ?? PROJECTS) as SuiteProject[];
  const unknown = projects.filter((project) => !PROJECTS.includes(project));
  if (unknown.length > 0) {
    process.stderr.write(`test:tools: no project ${unknown.join(', ')} (the projects: ${PROJECTS.join(', ')})\n`);
    return 2;
  }
  const outcomes = await buildSuiteTools(projects, (line) => process.stderr.write(`[tools] ${line}\n`));
  return outcomes.every((outcome) => 'path' in outcome.found) ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
