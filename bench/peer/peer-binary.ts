import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { goSourceHash, type BuildRecipe } from '../../src/control-plane/build-binaries.ts';
import { crdgateCacheDir, ensureBuilt, type CachedBinary } from '../../src/control-plane/cached-build.ts';
import { findGo, goVersion } from '../../src/control-plane/go-toolchain.ts';

// The controller-runtime peer (the Go program next to this file) as a binary, built with the machine's Go the way
// the test control plane is, and cached by the content of its sources: an edit to the peer rebuilds it, anything
// else reuses the cached one (shared by all checkouts on the machine).

export type PeerBinary = CachedBinary;

export interface ResolvePeerOptions {
  /** Build it when missing (the unit project's setup and the bench do); otherwise say it is missing. */
  build: boolean;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const execFileAsync = promisify(execFile);
const PEER_MODULE_DIR = fileURLToPath(new URL('./', import.meta.url));

const peerRecipe: BuildRecipe = {
  name: 'peer',
  moduleDir: PEER_MODULE_DIR,
  goPackage: '.',
  tags: [],
  ldflags: ['-s', '-w'],
  // -mod=readonly: go.sum is the pin, never rewritten; -buildvcs=false: the binary is keyed by its sources, not git.
  flags: ['-mod=readonly', '-buildvcs=false'],
  versionArgs: [],
  prove: provePeer,
};

/** The peer has no version flag: the proof that it runs is its usage text (Go's flag package exits 2 with it). */
async function provePeer(path: string): Promise<string> {
  const { stderr } = await execFileAsync(path, ['-h']).catch((error: { stderr?: string }) => ({
    stderr: error.stderr ?? '',
  }));
  if (!/-cert-dir/.test(stderr)) throw new Error(`${path} -h did not print the peer's usage: ${stderr.trim()}`);
  return 'the controller-runtime peer, answering -h with its usage';
}

export async function resolvePeerBinary(options: ResolvePeerOptions): Promise<PeerBinary> {
  const env = options.env ?? process.env;
  const go = await findGo(env);
  const salt = go ? await goVersion(go, env) : '';
  return ensureBuilt(
    peerRecipe,
    {
      dir: join(crdgateCacheDir(env), 'bench-peer'),
      fileName: `peer-${await goSourceHash(PEER_MODULE_DIR, salt)}`,
      stale: /^peer-[0-9a-f]{12}$/,
    },
    {
      build: options.build,
      log: options.log ?? ((line: string) => process.stderr.write(`peer: ${line}\n`)),
      env,
      buildStep: 'the unit project builds it in its setup (npm run test:tools)',
    },
  );
}
