import { join } from 'node:path';
import type { BuildRecipe } from './build-binaries.ts';
import { crdgateCacheDir, ensureBuilt } from './cached-build.ts';
import { HELM_MODULE_DIR, readHelmVersion } from './go-modules.ts';
import type { ResolveKubeAssetsOptions } from './kube-assets.ts';

export type HelmBinary = { path: string; version: string } | { unavailable: string };

/** helm, for the tests of the chart `crdgate manifests --format helm` writes (src/control-plane/go/helm). */
const HELM = 'helm';

function helmRecipe(version: string): BuildRecipe {
  const versionPackage = 'helm.sh/helm/v4/internal/version';
  // What helm's own Makefile stamps for a release: without it, `helm version` says v4.N without the patch.
  const stamps = [`-X ${versionPackage}.version=${version}`, `-X ${versionPackage}.gitTreeState=clean`];
  return {
    name: HELM,
    moduleDir: HELM_MODULE_DIR,
    goPackage: 'helm.sh/helm/v4/cmd/helm',
    tags: [],
    ldflags: ['-s', '-w', ...stamps],
    versionArgs: ['version', '--short'],
  };
}

/**
 * Finds helm at the version src/control-plane/go/helm pins, building it with Go if needed and allowed, in a cache
 * folder of its own beside the control plane's (helm follows its own releases, not kube-apiserver's).
 */
export async function resolveHelm(opts: ResolveKubeAssetsOptions): Promise<HelmBinary> {
  const env = opts.env ?? process.env;
  const version = readHelmVersion();
  const found = await ensureBuilt(
    helmRecipe(version),
    { dir: join(crdgateCacheDir(env), 'helm', `helm-${version}`) },
    {
      build: opts.build,
      log: opts.log ?? ((line: string) => process.stderr.write(`helm: ${line}\n`)),
      env,
      buildStep: opts.buildStep ?? 'run: npx crdgate kube-bin --helm',
    },
  );
  return 'path' in found ? { path: found.path, version } : found;
}
