import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchFolders, type FolderWatcher } from './folder-watcher.ts';

describe('watchFolders', () => {
  let root: string;
  let watcher: FolderWatcher | undefined;
  let changes = 0;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'crdgate-watch-'));
    await writeFile(join(root, 'contract.ts'), 'one');
    changes = 0;
  });
  afterEach(async () => {
    watcher?.close();
    await rm(root, { recursive: true, force: true });
  });

  /** Waits until a change has been reported since `before`, or fails after two seconds. */
  async function changeAfter(before: number): Promise<void> {
    const deadline = Date.now() + 2_000;
    while (changes === before) {
      if (Date.now() > deadline) throw new Error('no change was reported');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('keeps reporting writes to a file after an editor replaced it by renaming a new file over it', async () => {
    watcher = watchFolders([root], () => changes++);
    let before = changes;
    await writeFile(join(root, 'contract.ts.swp'), 'two');
    await rename(join(root, 'contract.ts.swp'), join(root, 'contract.ts'));
    await changeAfter(before);
    await new Promise((resolve) => setTimeout(resolve, 100));
    before = changes;
    await writeFile(join(root, 'contract.ts'), 'three');
    await changeAfter(before);
  });

  it('reports files in folders made after it started, and ignores node_modules', async () => {
    watcher = watchFolders([root], () => changes++);
    await mkdir(join(root, 'node_modules'));
    await mkdir(join(root, 'versions'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    let before = changes;
    await writeFile(join(root, 'versions', 'v1beta1.ts'), 'x');
    await changeAfter(before);
    await new Promise((resolve) => setTimeout(resolve, 100));
    before = changes;
    await writeFile(join(root, 'node_modules', 'noise.js'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(changes).toBe(before);
  });
});
