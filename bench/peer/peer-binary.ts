import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goSourceHash, runCommand } from '../../src/control-plane/build-binaries.ts';
import { cacheHome, findGo, isExecutable } from '../../src/control-plane/kube-assets.ts';

// The controller-runtime peer (the Go program next to this file) as a binary, built with the machine's Go the way
// the test control plane is, and cached by the content of its sources: an edit to the peer rebuilds it, anything
// else reuses the cached one (shared by all checkouts on the machine).

/** unavailable only when there is no Go: with Go, a build that fails throws, so a broken peer fails its test. */
export type PeerBinary = { path: string } | { unavailable: string };

export interface ResolvePeerOptions {
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const PEER_MODULE_DIR = fileURLToPath(new URL('./', import.meta.url));
// -mod=readonly: go.sum is the pin, never rewritten; -buildvcs=false: the binary is keyed by its sources, not git.
const BUILD_FLAGS = ['-trimpath', '-mod=readonly', '-buildvcs=false', '-ldflags', '-s -w'];

export async function resolvePeerBinary(options: ResolvePeerOptions = {}): Promise<PeerBinary> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`peer: ${line}\n`));
  const go = await findGo(env);
  if (!go)
    return {
      unavailable:
        'Go is not installed (no `go` on PATH), so the controller-runtime peer cannot be built; install Go >= 1.26',
    };
  const goVersion = (await runCommand(go, ['env', 'GOVERSION'], { cwd: PEER_MODULE_DIR, env })).trim();
  const dir = join(
    cacheHome(env),
    'crdgate',
    'bench-peer',
    await goSourceHash(PEER_MODULE_DIR, `${goVersion} ${BUILD_FLAGS.join(' ')}`),
  );
  const path = join(dir, 'peer');
  if (await isExecutable(path)) return { path };

  await mkdir(dir, { recursive: true });
  // Built under a temporary name and renamed, so a concurrent or interrupted build never leaves half a binary.
  const temporaryPath = join(dir, `.peer.building-${process.pid}`);
  const started = Date.now();
  log(`building the controller-runtime peer with ${goVersion} into ${dir}; a cold build takes a few minutes`);
  try {
    // nice: the machine's cores are shared. GOWORK=off and CGO_ENABLED=0 as for the control plane binaries.
    await runCommand('nice', ['-n', '10', go, 'build', ...BUILD_FLAGS, '-o', temporaryPath, '.'], {
      cwd: PEER_MODULE_DIR,
      env: { ...env, GOWORK: 'off', CGO_ENABLED: '0' },
    });
    await rename(temporaryPath, path);
  } finally {
    await rm(temporaryPath, { force: true });
  }
  log(`built the peer in ${Math.round((Date.now() - started) / 1000)} s`);
  return { path };
}
