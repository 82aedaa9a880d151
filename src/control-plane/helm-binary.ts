import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBinary, type BuildRecipe } from './build-binaries.ts';
import { HELM_MODULE_DIR, readHelmVersion } from './go-modules.ts';
import { cacheHome, findGo, isExecutable, type ResolveKubeAssetsOptions } from './kube-assets.ts';

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
  const log = opts.log ?? ((line: string) => process.stderr.write(`helm: ${line}\n`));
  const version = readHelmVersion();
  const dir = join(cacheHome(env), 'crdgate', 'helm', `helm-${version}`);
  const path = join(dir, HELM);
  if (await isExecutable(path)) return { path, version };
  if (!opts.build) return { unavailable: `helm ${version} not built yet in ${dir}` };
  const go = await findGo(env);
  if (!go)
    return {
      unavailable: `Go is not installed (no \`go\` on PATH), so helm ${version} cannot be built; install Go >= 1.26`,
    };
  await mkdir(dir, { recursive: true });
  try {
    await buildBinary(helmRecipe(version), { go, outDir: dir, log, env });
  } catch (error) {
    return { unavailable: `building helm ${version} with ${go} failed: ${(error as Error).message}` };
  }
  return { path, version };
}
