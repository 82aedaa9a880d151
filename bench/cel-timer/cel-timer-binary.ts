import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goSourceHash, type BuildRecipe } from '../../src/control-plane/build-binaries.ts';
import { crdgateCacheDir, ensureBuilt, type CachedBinary } from '../../src/control-plane/cached-build.ts';
import { findGo, goVersion } from '../../src/control-plane/go-toolchain.ts';

// The cel-timer (main.go beside this file) as a binary, built with the machine's Go by build-binaries.ts as celcost
// is, and cached by its sources and the Go version: an edited main.go or go.mod is built afresh, anything else reuses
// the cached one (shared by all checkouts on the machine).

export type CelTimerBinary = CachedBinary;

/**
 * kube-apiserver's CEL validator over a CRD's rules, natively, with a clock: what `npm run bench -- --check` sets the
 * API server engine's evaluation of the same rules against, built from the same pinned modules as celcost and the
 * engine.
 */
const CEL_TIMER = 'cel-timer';
const CEL_TIMER_MODULE_DIR = fileURLToPath(new URL('./', import.meta.url));
const celTimerRecipe: BuildRecipe = {
  name: CEL_TIMER,
  moduleDir: CEL_TIMER_MODULE_DIR,
  goPackage: 'crdgate.test/bench/cel-timer',
  tags: [],
  ldflags: ['-s', '-w'],
  versionArgs: ['--version'],
};

/** unavailable when there is no Go, or when the build fails (the bench then says why). */
export async function resolveCelTimer(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CelTimerBinary> {
  const go = await findGo(env);
  const salt = go ? await goVersion(go, env) : '';
  return ensureBuilt(
    celTimerRecipe,
    {
      dir: join(crdgateCacheDir(env), 'bench-cel-timer'),
      fileName: `${CEL_TIMER}-${await goSourceHash(CEL_TIMER_MODULE_DIR, salt)}`,
      stale: new RegExp(`^${CEL_TIMER}-[0-9a-f]{12}$`),
    },
    { build: true, log, env, buildStep: 'npm run bench -- --check builds it' },
  );
}
