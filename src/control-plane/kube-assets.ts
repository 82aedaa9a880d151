import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  CEL_COST_ESTIMATOR,
  CEL_COST_MODULE_DIR,
  CONTROL_PLANE_BINARIES,
  controlPlaneRecipe,
  goSourceHash,
} from './build-binaries.ts';
import { crdgateCacheDir, ensureBuilt, type CachedBinary } from './cached-build.ts';
import { readControlPlaneVersions, type ControlPlaneVersions } from './go-modules.ts';

const execFileAsync = promisify(execFile);

export type KubeAssets = { dir: string; kubeApiserverVersion: string } | { unavailable: string };

export interface ResolveKubeAssetsOptions {
  /** Build missing binaries with Go (minutes when cold); otherwise report them unavailable. */
  build: boolean;
  /** Progress lines; stderr by default (stdout of kube-bin is reserved for the folder). */
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** What builds it, for the message when `build` is false and it is missing. */
  buildStep?: string;
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
  if (!opts.build)
    return { unavailable: `${missing.join(', ')} not built yet in ${dir} (${opts.buildStep ?? KUBE_BIN_STEP})` };
  for (const binary of missing) {
    const built = await ensureBuilt(
      controlPlaneRecipe(binary, versions),
      { dir },
      {
        build: true,
        log,
        env,
        buildStep: KUBE_BIN_STEP,
        withoutGo: 'or set KUBEBUILDER_ASSETS to a folder holding kube-apiserver, etcd and kubectl',
      },
    );
    if ('unavailable' in built) return built;
  }
  return { dir, kubeApiserverVersion: versions.kubernetes };
}

const KUBE_BIN_STEP = 'run: npx crdgate kube-bin';

export type CelCostEstimator = CachedBinary;

/**
 * Finds the celcost binary (src/control-plane/go/celcost), building it with Go if needed and allowed. It lives in
 * the per-version cache folder beside kube-apiserver, whose release its CEL libraries match, and never in a
 * KUBEBUILDER_ASSETS folder, which holds what setup-envtest puts there. Its file name carries a hash of its
 * sources, so an edited main.go or go.mod is built afresh instead of an old binary answering for it.
 */
export async function resolveCelCostEstimator(opts: ResolveKubeAssetsOptions): Promise<CelCostEstimator> {
  const env = opts.env ?? process.env;
  const versions = readControlPlaneVersions();
  return ensureBuilt(
    controlPlaneRecipe(CEL_COST_ESTIMATOR, versions),
    {
      dir: kubeBinCacheDir(env, versions),
      fileName: `${CEL_COST_ESTIMATOR}-${await goSourceHash(CEL_COST_MODULE_DIR)}`,
      stale: new RegExp(`^${CEL_COST_ESTIMATOR}-[0-9a-f]{12}$`),
    },
    {
      build: opts.build,
      log: opts.log ?? ((line: string) => process.stderr.write(`kube-bin: ${line}\n`)),
      env,
      buildStep: opts.buildStep ?? 'the test run builds it in its setup',
    },
  );
}

function kubeBinCacheDir(env: NodeJS.ProcessEnv, versions: ControlPlaneVersions): string {
  return join(crdgateCacheDir(env), 'kube-bin', `k8s-${versions.kubernetes}_etcd-${versions.etcd}`);
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
