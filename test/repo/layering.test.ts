import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from './module-imports.ts';

/** Imports of `files` that point into one of `forbidden` (repo-relative folders), as "file -> import". */
async function importsInto(files: readonly string[], forbidden: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    for (const target of await importsOf(file)) {
      if (forbidden.some((folder) => target.startsWith(`${folder}/`))) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

// Layers import downwards only: the API client (src/kube/) serves the migration, the server and the self-managed
// certificates alike, so it must not depend on any of them, nor on the CLI that maps its errors to exit statuses.
describe('the layers of src/', () => {
  it('src/kube/ imports nothing from src/commands/ or src/migrate/', async () => {
    expect(await importsInto(await sourceFiles('src/kube'), ['src/commands', 'src/migrate'])).toEqual([]);
  });

  it('only the CLI imports src/commands/: library code throws its own errors, the commands map them', async () => {
    const outside = (await sourceFiles('src')).filter((file) => !file.startsWith('src/commands/') && file !== 'src/cli.ts' && !file.endsWith('.test.ts'));
    expect(await importsInto(outside, ['src/commands'])).toEqual([]);
  });

  it('reads imports as they are written (the checks above would pass on nothing otherwise)', async () => {
    expect(await importsOf('src/kube/kube-api.ts')).toContain('src/abort/stop-signal.ts');
    expect(await importsInto(await sourceFiles('src/commands'), ['src/kube'])).toContain('src/commands/migrate.ts -> src/kube/kube-api.ts');
  });
});
