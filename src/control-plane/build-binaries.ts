import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ETCD_MODULE_DIR, KUBE_MODULE_DIR } from './go-modules.ts';
import type { ControlPlaneVersions } from './go-modules.ts';

export const CONTROL_PLANE_BINARIES = ['kube-apiserver', 'etcd', 'kubectl'] as const;
export type ControlPlaneBinary = (typeof CONTROL_PLANE_BINARIES)[number];

/**
 * The static CEL cost estimator of a ValidatingAdmissionPolicy, built from the API server's own CEL libraries at
 * kube-apiserver's release (src/control-plane/go/celcost). A tool for crdgate's tests, not part of the control plane.
 */
export const CEL_COST_ESTIMATOR = 'celcost';
export const CEL_COST_MODULE_DIR = fileURLToPath(new URL('../../src/control-plane/go/celcost/', import.meta.url));

/**
 * How to build one binary from a Go module. The builder knows none of them: each owner gives its own (the control
 * plane's below, helm's in helm-binary.ts, the API server engine's in api-server-engine/, the bench's tools in bench/).
 */
export interface BuildRecipe {
  /** What is built, for the log and the temporary file; the file's name in outDir unless the options give one. */
  name: string;
  moduleDir: string;
  goPackage: string;
  tags: string[];
  ldflags: string[];
  /** More flags for `go build`. */
  flags?: string[];
  /** Arguments that make the binary print its version: proof that it runs. */
  versionArgs: string[];
  /** For what cannot be run (a WebAssembly module): another proof, which answers a line for the log. */
  prove?: (path: string) => Promise<string>;
  /** More environment for `go build` (GOOS and GOARCH of a cross build). */
  goEnv?: Record<string, string>;
  buildMode?: string;
}

/** kube-apiserver, etcd, kubectl and celcost at the pinned release. */
export function controlPlaneRecipe(
  binary: ControlPlaneBinary | typeof CEL_COST_ESTIMATOR,
  versions: ControlPlaneVersions,
): BuildRecipe {
  const versionArgs = ['--version'];
  if (binary === CEL_COST_ESTIMATOR) {
    const goPackage = 'crdgate.test/control-plane/celcost';
    return { name: binary, moduleDir: CEL_COST_MODULE_DIR, goPackage, tags: [], ldflags: ['-s', '-w'], versionArgs };
  }
  if (binary === 'etcd') {
    const goPackage = 'go.etcd.io/etcd/server/v3';
    return { name: binary, moduleDir: ETCD_MODULE_DIR, goPackage, tags: [], ldflags: ['-s', '-w'], versionArgs };
  }
  const [, major = '', minor = ''] = /^v(\d+)\.(\d+)\./.exec(versions.kubernetes) ?? [];
  // Without these, /version and `kubectl version` report v0.0.0-master+$Format:%H$ (what upstream's
  // hack/lib/version.sh stamps; client-go's copy names the client in User-Agent headers).
  const stamps = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${versions.kubernetes}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]);
  return {
    name: binary,
    moduleDir: KUBE_MODULE_DIR,
    goPackage: `k8s.io/kubernetes/cmd/${binary}`,
    tags: ['selinux', 'notest'],
    ldflags: ['-s', '-w', ...stamps],
    versionArgs: binary === 'kubectl' ? ['version', '--client'] : versionArgs,
  };
}

export interface BuildOptions {
  go: string;
  outDir: string;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** The file name in outDir; the recipe's name by default. */
  fileName?: string;
}

/**
 * Builds one binary into outDir. It is built under a temporary name, run once, and only then
 * renamed into place, so an interrupted or broken build never leaves a cached binary behind.
 * Throws with the tail of go's output when the build fails.
 */
export async function buildBinary(recipe: BuildRecipe, opts: BuildOptions): Promise<void> {
  const binary = recipe.name;
  const finalPath = join(opts.outDir, opts.fileName ?? binary);
  const temporaryPath = join(opts.outDir, `.${binary}.building-${process.pid}`);
  const args = [
    'build',
    ...(recipe.buildMode ? [`-buildmode=${recipe.buildMode}`] : []),
    '-trimpath',
    ...(recipe.flags ?? []),
    ...(recipe.tags.length > 0 ? ['-tags', recipe.tags.join(',')] : []),
    '-ldflags',
    recipe.ldflags.join(' '),
    '-o',
    temporaryPath,
    recipe.goPackage,
  ];
  const started = Date.now();
  opts.log(`building ${binary} (${recipe.goPackage}); a cold build takes minutes`);
  const heartbeat = setInterval(
    () => opts.log(`  still building ${binary} (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    // GOWORK=off: a go.work further up must not pull other modules into the graph. CGO_ENABLED=0:
    // static binaries that need no C toolchain (upstream builds these the same way).
    await runCommand(opts.go, args, {
      cwd: recipe.moduleDir,
      env: { ...opts.env, GOWORK: 'off', CGO_ENABLED: '0', ...recipe.goEnv },
    });
    const version = recipe.prove
      ? await recipe.prove(temporaryPath)
      : await runCommand(temporaryPath, recipe.versionArgs, { cwd: opts.outDir, env: opts.env });
    await rename(temporaryPath, finalPath);
    opts.log(`built ${binary} in ${Math.round((Date.now() - started) / 1000)} s: ${firstLine(version)}`);
  } finally {
    clearInterval(heartbeat);
    await rm(temporaryPath, { force: true });
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

const OUTPUT_TAIL_CHARS = 4000;

/**
 * What decides a binary built from the Go module in `moduleDir`: its .go files, go.mod and go.sum, and `salt` (the
 * toolchain and flags, where they vary). Cached builds are named by it, so an edited source is built afresh.
 */
export async function goSourceHash(moduleDir: string, salt = ''): Promise<string> {
  const names = (await readdir(moduleDir))
    .filter((name) => name.endsWith('.go') || name === 'go.mod' || name === 'go.sum')
    .sort();
  const hash = createHash('sha256').update(salt);
  for (const name of names) hash.update(`\0${name}\0`).update(await readFile(join(moduleDir, name)));
  return hash.digest('hex').slice(0, 12);
}

export function runCommand(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`));
    });
  });
}
