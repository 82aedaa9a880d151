import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { withFileLock } from '../../../src/control-plane/file-lock.ts';
import { buildImage, type BuiltImage } from './container-image.ts';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const RECORD = 'crdgate-image.json';

export type SharedImage = Omit<BuiltImage, 'remove'>;

/**
 * crdgate's own image, as `docker build .` builds it from the repository's Dockerfile: built once per test run by
 * the first file that asks (the others, in this lane or another, wait for it and take the same one), since building
 * it runs two installs, the compiler and a Go link. Nothing a test does writes into it: its /app is closed to
 * writes, as the image's layers are. Removed with the run's scratch folder (run-scratch-setup.ts).
 */
export async function crdgateImage(): Promise<SharedImage> {
  const scratch = inject('runScratch');
  const log = (line: string) => process.stderr.write(`[crdgate image] ${line}\n`);
  return withFileLock(join(scratch, `${RECORD}.lock`), "crdgate's image", log, async () => {
    const recorded = await readFile(join(scratch, RECORD), 'utf8').catch(() => undefined);
    if (recorded !== undefined) return (JSON.parse(recorded) as { image: SharedImage }).image;
    const started = Date.now();
    const { remove: _remove, ...image } = await buildImage(join(repo, 'Dockerfile'), repo, dirname(process.execPath));
    await writeFile(join(scratch, RECORD), JSON.stringify({ image }));
    log(`built in ${Math.round((Date.now() - started) / 1000)} s, for every file of this run`);
    return image;
  });
}

/** What the run's teardown removes of crdgate's image, if a file built it. */
export async function removeCrdgateImage(scratch: string): Promise<void> {
  const recorded = await readFile(join(scratch, RECORD), 'utf8').catch(() => undefined);
  if (recorded !== undefined)
    await rm((JSON.parse(recorded) as { image: SharedImage }).image.root, { recursive: true, force: true });
}
