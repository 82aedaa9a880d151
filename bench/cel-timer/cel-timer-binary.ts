import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBinary, goSourceHash, runCommand, type BuildRecipe } from '../../src/control-plane/build-binaries.ts';
import { cacheHome, findGo, isExecutable } from '../../src/control-plane/kube-assets.ts';

// The cel-timer (main.go beside this file) as a binary, built with the machine's Go by build-binaries.ts as celcost
// is, and cached by its sources and the Go version: an edited main.go or go.mod is built afresh, anything else reuses
// the cached one (shared by all checkouts on the machine).

export type CelTimerBinary = { path: string } | { unavailable: string };

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

/** unavailable only when there is no Go: with Go, a build that fails throws, so a broken timer fails the bench. */
export async function resolveCelTimer(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CelTimerBinary> {
  const go = await findGo(env);
  if (!go)
    return {
      unavailable: `Go is not installed (no \`go\` on PATH), so ${CEL_TIMER} cannot be built; install Go >= 1.26`,
    };
  const goVersion = (await runCommand(go, ['env', 'GOVERSION'], { cwd: CEL_TIMER_MODULE_DIR, env })).trim();
  const dir = join(cacheHome(env), 'crdgate', 'bench-cel-timer');
  const fileName = `${CEL_TIMER}-${await goSourceHash(CEL_TIMER_MODULE_DIR, goVersion)}`;
  const path = join(dir, fileName);
  if (await isExecutable(path)) return { path };
  await mkdir(dir, { recursive: true });
  await buildBinary(celTimerRecipe, { go, outDir: dir, log, env, fileName });
  // Builds from earlier sources are never used again; each is tens of megabytes.
  const stale = (await readdir(dir)).filter(
    (name) => new RegExp(`^${CEL_TIMER}-[0-9a-f]{12}$`).test(name) && name !== fileName,
  );
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return { path };
}
