import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Every .ts file under `folder` (repo-relative), as repo-relative paths with forward slashes. */
export async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(join(repo, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(repo, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/**
 * What a module imports, static, dynamic and type-only alike, as TypeScript reads it (not a regex: a specifier
 * in a comment or a string is not an import). Relative specifiers come back repo-relative; packages as written.
 */
export async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(join(repo, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) =>
    fileName.startsWith('.')
      ? relative(repo, resolve(dirname(join(repo, file)), fileName))
          .split('\\')
          .join('/')
      : fileName,
  );
}
