import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crdgateCacheDir } from '../src/control-plane/cached-build.ts';
import { findGo } from '../src/control-plane/go-toolchain.ts';
import { resolvePinnedTool, type PinnedTool, type PinnedToolBinary } from './crd-tools/crd-tool-binaries.ts';

// kubectl-validate, what `npm run bench -- --check` sets `crdgate check --crd` against on Gateway API's HTTPRoute: a
// native Go program that validates manifests against CRDs on disk with apiextensions-apiserver's own validation
// (OpenAPI schema and CEL rules), no cluster. Pinned to its release v0.0.4 and built once, as the revision checkers
// are (crd-tools/crd-tool-binaries.ts), into ~/.cache/crdgate/kubectl-validate/.

export const KUBECTL_VALIDATE: PinnedTool<'kubectl-validate'> = {
  tool: 'kubectl-validate',
  module: 'sigs.k8s.io/kubectl-validate',
  version: 'v0.0.4',
  commit: 'fac15fd6e47976df8585fe18a73246d78642eab9',
  mainPackage: '.',
  gitEnv: 'CRDGATE_KUBECTL_VALIDATE_GIT',
  vendored: false,
};

export async function resolveKubectlValidate(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PinnedToolBinary<'kubectl-validate'>> {
  const go = await findGo(env);
  if (!go) return { tool: 'kubectl-validate', unavailable: 'Go is not installed (no `go` on PATH)' };
  const dir = join(crdgateCacheDir(env), 'kubectl-validate');
  await mkdir(dir, { recursive: true });
  return resolvePinnedTool(KUBECTL_VALIDATE, go, dir, log, env);
}
