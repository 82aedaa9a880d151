import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, readdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  CEL_COST_ESTIMATOR,
  CEL_COST_MODULE_DIR,
  CONTROL_PLANE_BINARIES,
  buildBinary,
  controlPlaneRecipe,
  goSourceHash,
} from './build-binaries.ts';
import { readControlPlaneVersions, type ControlPlaneVersions } from './go-modules.ts';

const execFileAsync = promisify(execFile);

export type KubeAssets = { dir: string; kubeApiserverVersion: string } | { unavailable: string };

export interface ResolveKubeAssetsOptions {
  /** Build missing binaries with Go (minutes when cold); otherwise report them unavailable. */
  build: boolean;
  /** Progress lines; stderr by default (stdout of kube-bin is reserved for the folder). */
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/**
 * Finds a folder holding kube-apiserver, etcd and kubectl (the KUBEBUILDER_ASSETS layout):
 * $KUBEBUILDER_ASSETS when it is complete, else a per-version cache folder, built with Go if needed.
 */
export async function resolveKubeAssets(opts: ResolveKubeAssetsOptions): Promise<KubeAssets> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((line: string) => process.stderr.write(`kube-bin: ${line}\n`));

  const given = env['KUBEBUILDER_ASSETS'];
  if (given) {
    const dir = resolve(given);
    const missing = await missingBinaries(dir);
    if (missing.length === 0) return { dir, kubeApiserverVersion: await askKubeApiserverVersion(dir) };
    log(`KUBEBUILDER_ASSETS=${given} lacks ${missing.join(', ')}; using the build cache instead`);
  }

  const versions = readControlPlaneVersions();
  const dir = kubeBinCacheDir(env, versions);
  const missing = await missingBinaries(dir);
  // The binaries are stamped with the version at build time, so the folder name is the truth.
  if (missing.length === 0) return { dir, kubeApiserverVersion: versions.kubernetes };
  if (!opts.build) return { unavailable: `${missing.join(', ')} not built yet in ${dir} (run: npx crdgate kube-bin)` };

  const go = await findGo(env);
  if (!go) {
    return {
      unavailable:
        'Go is not installed (no `go` on PATH), so kube-apiserver and etcd cannot be built; ' +
        'install Go >= 1.26 or set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl',
    };
  }
  await mkdir(dir, { recursive: true });
  try {
    for (const binary of missing)
      await buildBinary(controlPlaneRecipe(binary, versions), { go, outDir: dir, log, env });
  } catch (error) {
    return { unavailable: `building the control plane with ${go} failed: ${(error as Error).message}` };
  }
  return { dir, kubeApiserverVersion: versions.kubernetes };
}

export type CelCostEstimator = { path: string } | { unavailable: string };

/**
 * Finds the celcost binary (src/control-plane/go/celcost), building it with Go if needed and allowed. It lives in
 * the per-version cache folder beside kube-apiserver, whose release its CEL libraries match, and never in a
 * KUBEBUILDER_ASSETS folder, which holds what setup-envtest puts there. Its file name carries a hash of its
 * sources, so an edited main.go or go.mod is built afresh instead of an old binary answering for it.
 */
export async function resolveCelCostEstimator(opts: ResolveKubeAssetsOptions): Promise<CelCostEstimator> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((line: string) => process.stderr.write(`kube-bin: ${line}\n`));
  const versions = readControlPlaneVersions();
  const dir = kubeBinCacheDir(env, versions);
  const fileName = `${CEL_COST_ESTIMATOR}-${await goSourceHash(CEL_COST_MODULE_DIR)}`;
  const path = join(dir, fileName);
  if (await isExecutable(path)) return { path };
  if (!opts.build) return { unavailable: `${fileName} not built yet in ${dir}` };
  const go = await findGo(env);
  if (!go)
    return {
      unavailable: `Go is not installed (no \`go\` on PATH), so ${CEL_COST_ESTIMATOR} cannot be built; install Go >= 1.26`,
    };
  await mkdir(dir, { recursive: true });
  try {
    await buildBinary(controlPlaneRecipe(CEL_COST_ESTIMATOR, versions), { go, outDir: dir, log, env, fileName });
  } catch (error) {
    return { unavailable: `building ${CEL_COST_ESTIMATOR} with ${go} failed: ${(error as Error).message}` };
  }
  // Builds from earlier sources are never used again; each is tens of megabytes.
  const stale = (await readdir(dir)).filter(
    (name) => new RegExp(`^${CEL_COST_ESTIMATOR}-[0-9a-f]{12}$`).test(name) && name !== fileName,
  );
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return { path };
}

function kubeBinCacheDir(env: NodeJS.ProcessEnv, versions: ControlPlaneVersions): string {
  return join(cacheHome(env), 'crdgate', 'kube-bin', `k8s-${versions.kubernetes}_etcd-${versions.etcd}`);
}

export function cacheHome(env: NodeJS.ProcessEnv): string {
  return env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
}

async function missingBinaries(dir: string): Promise<(typeof CONTROL_PLANE_BINARIES)[number][]> {
  const checks = await Promise.all(
    CONTROL_PLANE_BINARIES.map(async (binary) => ((await isExecutable(join(dir, binary))) ? undefined : binary)),
  );
  return checks.filter((binary) => binary !== undefined);
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function askKubeApiserverVersion(dir: string): Promise<string> {
  const { stdout } = await execFileAsync(join(dir, 'kube-apiserver'), ['--version']);
  const version = /v\d+\.\d+\.\d+\S*/.exec(stdout)?.[0];
  if (!version)
    throw new Error(`cannot read the version from "${join(dir, 'kube-apiserver')} --version": ${stdout.trim()}`);
  return version;
}

// `go` from PATH, else from GOROOT (set by some CI setups that do not touch PATH).
export async function findGo(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const candidates = ['go', ...(env['GOROOT'] ? [join(env['GOROOT'], 'bin', 'go')] : [])];
  for (const candidate of candidates) {
    try {
      await execFileAsync(candidate, ['version'], { env });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}
