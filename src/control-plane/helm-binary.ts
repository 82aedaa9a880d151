import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HELM, buildBinary } from './build-binaries.ts';
import { readControlPlaneVersions, readHelmVersion } from './go-modules.ts';
import { cacheHome, findGo, isExecutable, type ResolveKubeAssetsOptions } from './kube-assets.ts';

export type HelmBinary = { path: string; version: string } | { unavailable: string };

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
  if (!go) return { unavailable: `Go is not installed (no \`go\` on PATH), so helm ${version} cannot be built; install Go >= 1.26` };
  await mkdir(dir, { recursive: true });
  try {
    await buildBinary(HELM, { go, outDir: dir, versions: readControlPlaneVersions(), log, env });
  } catch (error) {
    return { unavailable: `building helm ${version} with ${go} failed: ${(error as Error).message}` };
  }
  return { path, version };
}
