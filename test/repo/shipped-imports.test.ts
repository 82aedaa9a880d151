import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { importsOf, repo } from './module-imports.ts';

const run = promisify(execFile);

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The repo's own modules the build compiles into dist/, as `npm pack` ships them (tsconfig.build.json's file set). */
async function shippedModules(): Promise<string[]> {
  const { stdout } = await run(
    join(repo, 'node_modules/.bin/tsc'),
    ['-p', join(repo, 'tsconfig.build.json'), '--listFilesOnly'],
    { cwd: repo, timeout: 120_000 },
  );
  return stdout
    .split('\n')
    .map((path) => relative(repo, path.trim()).split('\\').join('/'))
    .filter((path) => path.startsWith('src/') && path.endsWith('.ts') && !path.endsWith('.d.ts'));
}

// An installed crdgate has its dependencies only: a shipped module that imports a devDependency (fast-check, say)
// fails to load for its user, or drags a test library into dist/ for nothing. Test-only helpers are *.fixture.ts,
// which the build leaves out.
describe('what the package ships', () => {
  it('imports no devDependency: only node: built-ins, dependencies and its own modules', async () => {
    const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const allowed = new Set([...Object.keys(manifest.dependencies), ...builtinModules]);
    const shipped = await shippedModules();
    expect(shipped).toContain('src/cli.ts');
    expect(shipped).not.toContain('src/contracts/geodatabase/conversion-arbitraries.fixture.ts');
    const offending: string[] = [];
    for (const file of shipped) {
      for (const specifier of await importsOf(file)) {
        if (specifier.startsWith('src/') || specifier.startsWith('node:')) continue;
        if (!allowed.has(packageOf(specifier))) offending.push(`${file} -> ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  }, 120_000);
});
