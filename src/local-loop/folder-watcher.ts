import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

// Node's recursive fs.watch on Linux watches files one by one: after an editor saves by renaming a new file over
// the old one (vim, JetBrains' safe write, sed -i), it reports nothing more for that file. A watch on each folder
// reports every entry of the folder, whatever replaced it, so the folders are watched one by one instead.

/** Folders a contract's sources never live in: their churn must not reload anything. */
const ignoredFolders = new Set(['node_modules', '.git', 'dist']);

export interface FolderWatcher {
  close(): void;
}

/** Calls onChange whenever an entry in one of the roots, or in a folder below them, is created, written or replaced. */
export function watchFolders(roots: readonly string[], onChange: () => void): FolderWatcher {
  const watchers = new Map<string, FSWatcher>();
  const add = (dir: string): void => {
    if (watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, function folderChanged(_event, name) {
        if (name !== null && ignoredFolders.has(String(name))) return;
        // A folder made since (or moved in) is watched too; one that went away drops its watcher on error.
        if (name !== null) addTree(join(dir, String(name)));
        onChange();
      });
    } catch {
      return; // gone, or not a folder
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
  };
  const addTree = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // a file, or already gone
    }
    add(dir);
    for (const entry of entries)
      if (entry.isDirectory() && !ignoredFolders.has(entry.name)) addTree(join(dir, entry.name));
  };
  for (const root of roots) addTree(root);
  return {
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
