import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { GeneratedFile } from './manifest.ts';
import { generatedMarker, manifestsToYaml } from './manifest-yaml.ts';

export interface WrittenManifests {
  written: string[];
  /** Files an earlier run generated that this run no longer does (a contract was removed or renamed). */
  removed: string[];
}

/**
 * Writes the files under dir and removes the generated files it no longer renders, so that the folder is exactly
 * the generator's output. Files without the generated-file header are someone's own and are left alone.
 */
export async function writeManifestDirectory(dir: string, files: readonly GeneratedFile[]): Promise<WrittenManifests> {
  const wanted = new Set(files.map((file) => file.path));
  const removed: string[] = [];
  for (const [path, text] of await readManifestDirectory(dir)) {
    if (!wanted.has(path) && text.startsWith(generatedMarker)) {
      await rm(join(dir, path));
      removed.push(path);
    }
  }
  for (const file of files) {
    const path = join(dir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, generatedFileText(file));
  }
  return { written: files.map((file) => file.path), removed };
}

/** The text of a generated file: YAML under the generated-file header, JSON (which has no comments) or text as is. */
export function generatedFileText(file: GeneratedFile): string {
  if ('text' in file) return file.text;
  return 'json' in file ? `${JSON.stringify(file.json, null, 2)}\n` : manifestsToYaml(file.manifests, file.comment);
}

/** Every YAML or JSON file under dir (recursively), by its path relative to dir with `/` separators; empty when dir is absent. */
export async function readManifestDirectory(dir: string): Promise<Map<string, string>> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  const files = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.isFile() || !/\.(ya?ml|json)$/.test(entry.name)) continue;
    const absolute = join(entry.parentPath, entry.name);
    files.set(relative(dir, absolute).split(sep).join('/'), await readFile(absolute, 'utf8'));
  }
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}
