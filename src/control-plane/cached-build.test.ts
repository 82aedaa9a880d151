import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import type { BuildRecipe } from './build-binaries.ts';
import { ensureBuilt } from './cached-build.ts';
import { findGo } from './go-toolchain.ts';

const execFileAsync = promisify(execFile);
const cachedBuildModule = fileURLToPath(new URL('./cached-build.ts', import.meta.url));
const go = await findGo(process.env);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-cached-build-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A Go program of one file that answers --version. */
async function tinyModule(): Promise<BuildRecipe> {
  const moduleDir = join(dir, 'module');
  await mkdir(moduleDir);
  await writeFile(join(moduleDir, 'go.mod'), 'module example.test/tiny\n\ngo 1.26\n');
  await writeFile(
    join(moduleDir, 'main.go'),
    'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("tiny v1.0.0") }\n',
  );
  return { name: 'tiny', moduleDir, goPackage: '.', tags: [], ldflags: ['-s', '-w'], versionArgs: ['--version'] };
}

describe('ensureBuilt', () => {
  it('says what is missing and which step builds it, when it may not build', async () => {
    const recipe = await tinyModule();
    const found = await ensureBuilt(
      recipe,
      { dir: join(dir, 'cache'), fileName: 'tiny-abc' },
      { build: false, log: () => {}, env: process.env, buildStep: 'npm run test:tools' },
    );
    expect(found).toEqual({ unavailable: `tiny-abc not built yet in ${join(dir, 'cache')} (npm run test:tools)` });
  });

  it('says that Go is missing, and what would do instead', async () => {
    const recipe = await tinyModule();
    const found = await ensureBuilt(
      recipe,
      { dir: join(dir, 'cache') },
      {
        build: true,
        log: () => {},
        env: { PATH: join(dir, 'no-go-here'), HOME: dir },
        buildStep: 'x',
        withoutGo: 'or set KUBEBUILDER_ASSETS',
      },
    );
    expect(found).toEqual({
      unavailable:
        'Go is not installed (no `go` on PATH), so tiny cannot be built; install Go >= 1.26; or set KUBEBUILDER_ASSETS',
    });
  });

  it.skipIf(missingPrerequisite('the test that two processes build a tool once', go ? undefined : 'no Go on PATH'))(
    'builds a tool once when two processes ask for it at the same time: the second waits and finds it built',
    async () => {
      const recipe = await tinyModule();
      const slot = { dir: join(dir, 'cache'), fileName: 'tiny-1', stale: /^tiny-\d+$/ };
      // An earlier build of other sources, which the new one replaces.
      await mkdir(slot.dir);
      await writeFile(join(slot.dir, 'tiny-0'), '');
      const script = `
        import { ensureBuilt } from ${JSON.stringify(cachedBuildModule)};
        const found = await ensureBuilt(${JSON.stringify(recipe)}, { ...${JSON.stringify({ dir: slot.dir, fileName: slot.fileName })}, stale: /^tiny-\\d+$/ },
          { build: true, log: (line) => process.stderr.write(line + '\\n'), env: process.env, buildStep: 'x' });
        process.stdout.write(JSON.stringify(found));`;
      const runs = await Promise.all(
        [1, 2].map(() => execFileAsync(process.execPath, ['--input-type=module', '-e', script])),
      );
      const path = join(slot.dir, 'tiny-1');
      expect(runs.map((run) => JSON.parse(run.stdout))).toEqual([{ path }, { path }]);
      const logs = runs.map((run) => run.stderr).join('');
      expect(logs.match(/^building tiny /gm)).toHaveLength(1);
      expect(logs).toMatch(/^built tiny in \d+ s: tiny v1\.0\.0$/m);
      expect((await execFileAsync(path)).stdout).toBe('tiny v1.0.0\n');
      expect((await readdir(slot.dir)).sort()).toEqual(['tiny-1']);
    },
    120_000,
  );
});
