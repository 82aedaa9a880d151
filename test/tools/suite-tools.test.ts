import { execFile } from 'node:child_process';
import { access, readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SUITE_TOOLS } from './suite-tools.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));

async function testFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(repo, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.test.ts'))
      found.push(relative(repo, join(entry.parentPath, entry.name)));
  }
  return found;
}

// What finds or builds a tool; given `build: true` in a test, it would build inside that test's timeout.
const resolvers =
  /\b(resolveKubeAssets|resolveHelm|resolveCelCostEstimator|resolveOlmValidator|resolvePeerBinary|resolveCelTimer|buildEngine|buildAndPlaceEngine|ensureBuilt)\(\{?[^)]*build: true/s;

/** `npm run test:tools`, as docs/development.md gives it, with flags after `--`. */
function testTools(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', 'test:tools', '--', ...args], { cwd: repo }, (error, _stdout, stderr) =>
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stderr }),
    );
  });
}

describe('npm run test:tools', () => {
  it("finds the tools of a project that the run's setup built, saying where each is", async () => {
    const run = await testTools(['--project', 'unit']);
    expect(run.code, run.stderr).toBe(0);
    const ready = SUITE_TOOLS.filter((tool) => tool.projects.includes('unit')).map((tool) => tool.name);
    for (const name of ready) expect(run.stderr).toMatch(new RegExp(`^\\[tools\\] ${name}: ready in \\d+ s \\(/`, 'm'));
  }, 60_000);

  it('refuses a project that does not exist, naming the ones that do', async () => {
    const run = await testTools(['--project', 'system']);
    expect(run).toEqual({
      code: 2,
      stderr: expect.stringContaining('test:tools: no project system (the projects: unit, wasm, integration, e2e)'),
    });
  });
});

describe("the suite's tools", () => {
  it('are each proven by test files that exist', async () => {
    for (const tool of SUITE_TOOLS) {
      expect(tool.provenBy.length, tool.name).toBeGreaterThan(0);
      for (const file of tool.provenBy) await expect(access(join(repo, file)), file).resolves.toBeUndefined();
    }
  });

  it('are never built by a test: no test file asks a resolver to build (the unit tests of the cache aside)', async () => {
    // Those test the build path itself, on a Go program of their own or with no Go on PATH.
    const ofTheCache = ['src/control-plane/cached-build.test.ts', 'src/control-plane/kube-assets.test.ts'];
    const files = [...(await testFiles('src')), ...(await testFiles('test')), ...(await testFiles('bench'))];
    expect(files.length).toBeGreaterThan(200);
    const building = [];
    for (const file of files.filter((name) => !ofTheCache.includes(name))) {
      if (resolvers.test(await readFile(join(repo, file), 'utf8'))) building.push(file);
    }
    expect(building).toEqual([]);
  });
});
