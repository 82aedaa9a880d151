import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ETCD_MODULE_DIR, HELM_MODULE_DIR, KUBE_MODULE_DIR, readHelmVersion } from './go-modules.ts';
import type { ControlPlaneVersions } from './go-modules.ts';
import { wasm } from '../api-server-engine/wasm-api.ts';

export const CONTROL_PLANE_BINARIES = ['kube-apiserver', 'etcd', 'kubectl'] as const;
export type ControlPlaneBinary = (typeof CONTROL_PLANE_BINARIES)[number];

/**
 * The static CEL cost estimator of a ValidatingAdmissionPolicy, built from the API server's own CEL libraries at
 * kube-apiserver's release (src/control-plane/go/celcost). A tool for crdgate's tests, not part of the control plane.
 */
export const CEL_COST_ESTIMATOR = 'celcost';
export const CEL_COST_MODULE_DIR = fileURLToPath(new URL('../../src/control-plane/go/celcost/', import.meta.url));

/**
 * kube-apiserver's CEL validator over a CRD's rules, natively, with a clock (bench/cel-timer): what `npm run bench --
 * --check` sets the API server engine's evaluation of the same rules against. A tool for crdgate's bench, built from
 * the same pinned modules as celcost and the engine.
 */
export const CEL_TIMER = 'cel-timer';
export const CEL_TIMER_MODULE_DIR = fileURLToPath(new URL('../../bench/cel-timer/', import.meta.url));

/**
 * kube-apiserver's custom-resource pipeline as a WebAssembly (wasip1) reactor, for `crdgate check` and
 * crdgate/testing (src/api-server-engine). Not a program: the host calls its exports.
 */
export const API_SERVER_ENGINE = 'api-server-engine';
export const API_SERVER_ENGINE_MODULE_DIR = fileURLToPath(new URL('../../src/api-server-engine/go/', import.meta.url));
/** helm, for the tests of the chart `crdgate manifests --format helm` writes (src/control-plane/go/helm). */
export const HELM = 'helm';
export type BuildableBinary = ControlPlaneBinary | typeof CEL_COST_ESTIMATOR | typeof CEL_TIMER | typeof API_SERVER_ENGINE | typeof HELM;

interface BuildRecipe {
  moduleDir: string;
  goPackage: string;
  tags: string[];
  ldflags: string[];
  /** Arguments that make the binary print its version: proof that it runs. */
  versionArgs: string[];
  /** For what cannot be run (a WebAssembly module): another proof, which answers a line for the log. */
  prove?: (path: string) => Promise<string>;
  /** More environment for `go build` (GOOS and GOARCH of a cross build). */
  goEnv?: Record<string, string>;
  buildMode?: string;
}

function recipeFor(binary: BuildableBinary, versions: ControlPlaneVersions): BuildRecipe {
  if (binary === API_SERVER_ENGINE) {
    return {
      moduleDir: API_SERVER_ENGINE_MODULE_DIR,
      goPackage: 'crdgate.local/api-server-engine',
      tags: [],
      ldflags: ['-s', '-w'],
      versionArgs: [],
      prove: proveEngineModule,
      goEnv: { GOOS: 'wasip1', GOARCH: 'wasm' },
      // A reactor: _initialize instead of main, and the //go:wasmexport functions callable afterwards.
      buildMode: 'c-shared',
    };
  }
  if (binary === CEL_COST_ESTIMATOR) {
    return { moduleDir: CEL_COST_MODULE_DIR, goPackage: 'crdgate.test/control-plane/celcost', tags: [], ldflags: ['-s', '-w'], versionArgs: ['--version'] };
  }
  if (binary === CEL_TIMER) {
    return { moduleDir: CEL_TIMER_MODULE_DIR, goPackage: 'crdgate.test/bench/cel-timer', tags: [], ldflags: ['-s', '-w'], versionArgs: ['--version'] };
  }
  if (binary === HELM) {
    // What helm's own Makefile stamps for a release: without it, `helm version` says v4.N without the patch.
    const version = `-X helm.sh/helm/v4/internal/version.version=${readHelmVersion()}`;
    return { moduleDir: HELM_MODULE_DIR, goPackage: 'helm.sh/helm/v4/cmd/helm', tags: [], ldflags: ['-s', '-w', version, '-X helm.sh/helm/v4/internal/version.gitTreeState=clean'], versionArgs: ['version', '--short'] };
  }
  if (binary === 'etcd') {
    return { moduleDir: ETCD_MODULE_DIR, goPackage: 'go.etcd.io/etcd/server/v3', tags: [], ldflags: ['-s', '-w'], versionArgs: ['--version'] };
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
    moduleDir: KUBE_MODULE_DIR,
    goPackage: `k8s.io/kubernetes/cmd/${binary}`,
    tags: ['selinux', 'notest'],
    ldflags: ['-s', '-w', ...stamps],
    versionArgs: binary === 'kubectl' ? ['version', '--client'] : ['--version'],
  };
}

export interface BuildOptions {
  go: string;
  outDir: string;
  versions: ControlPlaneVersions;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  /** The file name in outDir; the binary's name by default. */
  fileName?: string;
}

/**
 * Builds one binary into outDir. It is built under a temporary name, run once, and only then
 * renamed into place, so an interrupted or broken build never leaves a cached binary behind.
 * Throws with the tail of go's output when the build fails.
 */
export async function buildBinary(binary: BuildableBinary, opts: BuildOptions): Promise<void> {
  const recipe = recipeFor(binary, opts.versions);
  const finalPath = join(opts.outDir, opts.fileName ?? binary);
  const temporaryPath = join(opts.outDir, `.${binary}.building-${process.pid}`);
  const args = [
    'build',
    ...(recipe.buildMode ? [`-buildmode=${recipe.buildMode}`] : []),
    '-trimpath',
    ...(recipe.tags.length > 0 ? ['-tags', recipe.tags.join(',')] : []),
    '-ldflags',
    recipe.ldflags.join(' '),
    '-o',
    temporaryPath,
    recipe.goPackage,
  ];
  const started = Date.now();
  opts.log(`building ${binary} (${recipe.goPackage}); a cold build takes minutes`);
  const heartbeat = setInterval(() => opts.log(`  still building ${binary} (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
  try {
    // GOWORK=off: a go.work further up must not pull other modules into the graph. CGO_ENABLED=0:
    // static binaries that need no C toolchain (upstream builds these the same way).
    await runCommand(opts.go, args, { cwd: recipe.moduleDir, env: { ...opts.env, GOWORK: 'off', CGO_ENABLED: '0', ...recipe.goEnv } });
    const version = recipe.prove ? await recipe.prove(temporaryPath) : await runCommand(temporaryPath, recipe.versionArgs, { cwd: opts.outDir, env: opts.env });
    await rename(temporaryPath, finalPath);
    opts.log(`built ${binary} in ${Math.round((Date.now() - started) / 1000)} s: ${firstLine(version)}`);
  } finally {
    clearInterval(heartbeat);
    await rm(temporaryPath, { force: true });
  }
}

/** The engine cannot be run by itself: it is proven by compiling it and finding the functions its host calls. */
async function proveEngineModule(path: string): Promise<string> {
  const module = await wasm.compile(await readFile(path));
  const exported = new Set(wasm.Module.exports(module).map((entry) => entry.name));
  const missing = ['_initialize', 'memory', 'alloc', 'free', 'load', 'judge', 'forget'].filter((name) => !exported.has(name));
  if (missing.length > 0) throw new Error(`${path} does not export ${missing.join(', ')}`);
  return `a WebAssembly reactor of ${Math.round((await stat(path)).size / 1e6)} MB`;
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
  const names = (await readdir(moduleDir)).filter((name) => name.endsWith('.go') || name === 'go.mod' || name === 'go.sum').sort();
  const hash = createHash('sha256').update(salt);
  for (const name of names) hash.update(`\0${name}\0`).update(await readFile(join(moduleDir, name)));
  return hash.digest('hex').slice(0, 12);
}

export function runCommand(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
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
