import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, posix, resolve } from 'node:path';
import { manifestFormat, parseManifest, type ManifestContents } from './manifest-documents.ts';

/** A path that cannot be read: the message names it and the system's reason. */
export class ManifestReadError extends Error {
  override name = 'ManifestReadError';
}

export interface TreeSource {
  cwd: string;
  /** Standard input, read at most once (for `-`). */
  readStdin: () => Promise<string>;
}

const manifestExtension = /\.(ya?ml|json)$/i;
/** Files read at once: enough to hide the file system's latency, few enough to stay far from the open-file limit. */
const readConcurrency = 32;

/**
 * Every object in the given paths, in a stable order (the paths as given, each folder's files sorted): a file as
 * named, whatever its extension; a folder walked recursively for .yaml, .yml and .json files, leaving out hidden
 * entries (`.git`) found on the way; `-` standard input.
 */
export async function readManifestTree(paths: readonly string[], source: TreeSource): Promise<ManifestContents> {
  const files: string[] = [];
  for (const path of paths) files.push(...(path === '-' ? ['-'] : await manifestFiles(path, source.cwd)));
  const contents: ManifestContents[] = [];
  for (let start = 0; start < files.length; start += readConcurrency) {
    const batch = files.slice(start, start + readConcurrency);
    contents.push(
      ...(await Promise.all(
        batch.map(async (file) => {
          const text = await readText(file, source);
          return parseManifest(file, text, manifestFormat(file, text));
        }),
      )),
    );
  }
  return {
    objects: contents.flatMap((c) => c.objects),
    notObjects: contents.flatMap((c) => c.notObjects),
    invalid: contents.flatMap((c) => c.invalid),
    empty: contents.flatMap((c) => c.empty),
  };
}

/**
 * The same files as readManifestTree, read and parsed one at a time and handed to `visit` before the next is read:
 * for inputs of any size (stored objects, a backup), memory holds one file's objects, not the tree's.
 */
export async function visitManifestFiles(
  paths: readonly string[],
  source: TreeSource,
  visit: (contents: ManifestContents) => void,
): Promise<void> {
  for (const path of paths) {
    for (const file of path === '-' ? ['-'] : await manifestFiles(path, source.cwd)) {
      const text = await readText(file, source);
      visit(parseManifest(file, text, manifestFormat(file, text)));
    }
  }
}

async function manifestFiles(path: string, cwd: string): Promise<string[]> {
  const absolute = resolve(cwd, path);
  const stats = await stat(absolute).catch((error: unknown) => unreadable(path, error));
  if (!stats.isDirectory()) return [path];
  const found: string[] = [];
  await walk(absolute, path, found, new Set());
  return found;
}

/** `seen` holds the real paths walked, so that a symbolic link back up the tree is not followed round forever. */
async function walk(absolute: string, shown: string, found: string[], seen: Set<string>): Promise<void> {
  const real = await realpath(absolute).catch((error: unknown) => unreadable(shown, error));
  if (seen.has(real)) return;
  seen.add(real);
  const entries = await readdir(absolute, { withFileTypes: true }).catch((error: unknown) => unreadable(shown, error));
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const child = join(absolute, entry.name);
    const childShown = posix.join(shown, entry.name);
    const isDirectory =
      entry.isDirectory() ||
      (entry.isSymbolicLink() && (await stat(child).catch(() => undefined))?.isDirectory() === true);
    if (isDirectory) await walk(child, childShown, found, seen);
    else if (manifestExtension.test(entry.name)) found.push(childShown);
  }
}

async function readText(file: string, source: TreeSource): Promise<string> {
  try {
    return file === '-' ? await source.readStdin() : await readFile(resolve(source.cwd, file), 'utf8');
  } catch (error) {
    return unreadable(file, error);
  }
}

function unreadable(path: string, error: unknown): never {
  throw new ManifestReadError(
    `${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
  );
}
