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
  /\b(resolveKubeAssets|resolveHelm|resolveCelCostEstimator|resolvePeerBinary|resolveCelTimer|buildEngine|buildAndPlaceEngine|ensureBuilt)\(\{?[^)]*build: true/s;

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
