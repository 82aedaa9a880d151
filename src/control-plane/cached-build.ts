import { access, constants, mkdir, readdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { buildBinary, type BuildRecipe } from './build-binaries.ts';
import { withFileLock } from './file-lock.ts';
import { findGo } from './go-toolchain.ts';

/** crdgate's cache: `$XDG_CACHE_HOME/crdgate`, else `~/.cache/crdgate`. */
export function crdgateCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache'), 'crdgate');
}

/** A tool built from a Go module: its file, or why it cannot be had. */
export type CachedBinary = { path: string } | { unavailable: string };

/** Where one build of a tool lives in crdgate's cache. */
export interface CacheSlot {
  dir: string;
  /** The recipe's name unless given: a name carrying a hash of the sources makes an edit build afresh. */
  fileName?: string;
  /** Earlier builds in `dir` that are never used again once this one is there (each is tens of megabytes). */
  stale?: RegExp;
}

export interface EnsureBuiltOptions {
  /** Build it when it is missing (minutes when cold); otherwise say it is missing. */
  build: boolean;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** What builds it when `build` is false, for the message: "npx crdgate kube-bin", the test run's setup. */
  buildStep: string;
  /** Why Go is needed, when it is missing: what else would do (KUBEBUILDER_ASSETS for the control plane). */
  withoutGo?: string;
}

/**
 * The one way a tool reaches the cache: found there, or built into it with the machine's Go while holding a lock, so
 * that two processes never build the same tool at once (the second waits, then finds it built). A file in the cache
 * was proven before it got its name (buildBinary renames it into place), so being there is being built.
 */
export async function ensureBuilt(
  recipe: BuildRecipe,
  slot: CacheSlot,
  opts: EnsureBuiltOptions,
): Promise<CachedBinary> {
  const fileName = slot.fileName ?? recipe.name;
  const path = join(slot.dir, fileName);
  if (await exists(path)) return { path };
  if (!opts.build) return { unavailable: `${fileName} not built yet in ${slot.dir} (${opts.buildStep})` };
  const go = await findGo(opts.env);
  if (!go) {
    const instead = opts.withoutGo ? `; ${opts.withoutGo}` : '';
    return {
      unavailable: `Go is not installed (no \`go\` on PATH), so ${recipe.name} cannot be built; install Go >= 1.26${instead}`,
    };
  }
  await mkdir(slot.dir, { recursive: true });
  try {
    await withFileLock(join(slot.dir, `.${fileName}.lock`), recipe.name, opts.log, async () => {
      // Another process may have built it while this one waited for the lock.
      if (await exists(path)) return;
      await buildBinary(recipe, { go, outDir: slot.dir, log: opts.log, env: opts.env, fileName });
    });
  } catch (error) {
    return { unavailable: `building ${recipe.name} with ${go} failed: ${(error as Error).message}` };
  }
  if (slot.stale) {
    const stale = (await readdir(slot.dir)).filter((name) => slot.stale!.test(name) && name !== fileName);
    await Promise.all(stale.map((name) => rm(join(slot.dir, name), { force: true })));
  }
  return { path };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}
