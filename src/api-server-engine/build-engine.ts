// Builds the API server engine (./go) with the machine's Go, twice: to WebAssembly (the fallback every copy of
// crdgate carries) and natively for this machine (what runs where it is built). Each build is cached under
// ~/.cache/crdgate/api-server-engine/ by a hash of the sources and the Go version, and placed where the host
// (./engine.ts) loads it from.
//
//   node src/api-server-engine/build-engine.ts             npm run build:engine: build or reuse, then place it in
//                                                           src/api-server-engine/ (what the tests and `node
//                                                           src/bin.ts` load)
//   node src/api-server-engine/build-engine.ts --if-go [--place DIR]
//                                                           npm ci and npm install (prepare): the same where Go is
//                                                           present, then copied into DIR (dist/); without Go, or
//                                                           when the build fails, one line and go on, since only
//                                                           `crdgate check` and check() need the engine
//   node src/api-server-engine/build-engine.ts --place DIR  npm run build: copy the placed engine into DIR (dist/);
//                                                           without Go or a built engine, say so and go on
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { goSourceHash, type BuildRecipe } from '../control-plane/build-binaries.ts';
import { crdgateCacheDir, ensureBuilt } from '../control-plane/cached-build.ts';
import { readControlPlaneVersions } from '../control-plane/go-modules.ts';
import { findGo } from '../control-plane/go-toolchain.ts';
import { AnswerReader, requestFrame } from './backend/frames.ts';
import { Operation } from './backend/engine-backend.ts';
import { wasm } from './backend/wasm-api.ts';

const execFileAsync = promisify(execFile);

/**
 * kube-apiserver's custom-resource pipeline as a WebAssembly (wasip1) reactor, for `crdgate check` and
 * crdgate/testing. Not a program: the host calls its exports.
 */
const API_SERVER_ENGINE = 'api-server-engine';
const API_SERVER_ENGINE_MODULE_DIR = fileURLToPath(new URL('../../src/api-server-engine/go/', import.meta.url));

const engineRecipe: BuildRecipe = {
  name: API_SERVER_ENGINE,
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

/** The same engine as a program for this machine: it answers requests framed on its standard input (serve_native.go). */
const nativeEngineRecipe: BuildRecipe = {
  name: `${API_SERVER_ENGINE} (native)`,
  moduleDir: API_SERVER_ENGINE_MODULE_DIR,
  goPackage: 'crdgate.local/api-server-engine',
  tags: [],
  ldflags: ['-s', '-w'],
  versionArgs: [],
  prove: proveNativeEngine,
  // No C: the binary runs on any Linux of its architecture (crdgate's image is Debian's slim Node).
  goEnv: { CGO_ENABLED: '0' },
};

/** The native engine is proven by asking it one question, framed as its host frames it, and reading the answer. */
async function proveNativeEngine(path: string): Promise<string> {
  const child = spawn(path, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answered = new Promise<string>((resolve, reject) => {
    const reader = new AnswerReader();
    child.stdout.on('data', (chunk: Buffer) => {
      const [answer] = reader.push(chunk);
      if (answer !== undefined) resolve(Buffer.from(answer.payload).toString('utf8'));
    });
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`${path} ended (code ${code}) before it answered`)));
  });
  child.stdin.end(requestFrame(1, Operation.evaluate, 0, Buffer.from('{"expr":"6 * 7"}')));
  const answer = await answered;
  if (!answer.includes('"42"')) throw new Error(`${path} answered 6 * 7 with ${answer}`);
  return `a program of ${Math.round((await stat(path)).size / 1e6)} MB that answers 6 * 7 with 42`;
}

/** The engine cannot be run by itself: it is proven by compiling it and finding the functions its host calls. */
async function proveEngineModule(path: string): Promise<string> {
  const module = await wasm.compile(await readFile(path));
  const exported = new Set(wasm.Module.exports(module).map((entry) => entry.name));
  const called = ['_initialize', 'memory', 'alloc', 'free', 'load', 'judge', 'forget'];
  const missing = called.filter((name) => !exported.has(name));
  if (missing.length > 0) throw new Error(`${path} does not export ${missing.join(', ')}`);
  return `a WebAssembly reactor of ${Math.round((await stat(path)).size / 1e6)} MB`;
}

/** Where `npm run build:engine` puts the engine, and what it says about it (engine.json). */
export const PLACED_ENGINE_DIR = fileURLToPath(new URL('../../src/api-server-engine/', import.meta.url));

export interface EngineStamp {
  /** goSourceHash of ./go, salted with the Go version: changes whenever a rebuild would. */
  sourceHash: string;
  go: string;
  kubernetes: string;
}

export type EngineBuild = { path: string; nativePath: string; stamp: EngineStamp } | { unavailable: string };

/** Go's name of this machine's architecture, which names the native build. */
function goArch(): string {
  return process.arch === 'x64' ? 'amd64' : process.arch === 'ia32' ? '386' : process.arch;
}

/** The stamp of the engine the current sources and Go would build; undefined without Go. */
export async function currentEngineStamp(env: NodeJS.ProcessEnv = process.env): Promise<EngineStamp | undefined> {
  const go = await findGo(env);
  if (!go) return undefined;
  const { stdout } = await execFileAsync(go, ['version'], { env });
  const goVersion = stdout.trim();
  return {
    sourceHash: await goSourceHash(API_SERVER_ENGINE_MODULE_DIR, goVersion),
    go: goVersion,
    kubernetes: readControlPlaneVersions().kubernetes,
  };
}

/** Builds both engines into the cache, or finds them there. A cold build takes minutes; a cached one, nothing. */
export async function buildEngine(opts: {
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}): Promise<EngineBuild> {
  const env = opts.env ?? process.env;
  const stamp = await currentEngineStamp(env);
  if (!stamp)
    return {
      unavailable:
        'Go is not installed (no `go` on PATH), so the API server engine cannot be built; install Go >= 1.26',
    };
  const dir = join(crdgateCacheDir(env), API_SERVER_ENGINE, `k8s-${stamp.kubernetes}`);
  const options = { build: true, log: opts.log, env, buildStep: 'npm run build:engine' };
  const built = await ensureBuilt(
    engineRecipe,
    // `.ok` marked a proven build before builds were renamed into place only once proven.
    { dir, fileName: `engine-${stamp.sourceHash}.wasm`, stale: /^engine-[0-9a-f]{12}\.wasm(\.ok)?$/ },
    options,
  );
  if (!('path' in built)) return built;
  const platform = `${process.platform}-${goArch()}`;
  const native = await ensureBuilt(
    nativeEngineRecipe,
    {
      dir,
      fileName: `engine-native-${stamp.sourceHash}-${platform}`,
      stale: new RegExp(`^engine-native-[0-9a-f]{12}-${platform}$`),
    },
    options,
  );
  if (!('path' in native)) return native;
  return { path: built.path, nativePath: native.path, stamp };
}

/**
 * Puts the engine and its stamp into `dir`, each file whole under its name at every moment (written aside, then
 * renamed): a process that loads the engine while another places it (a test run beside `npm run test:tools`) reads
 * the old file or the new one, never half of one. An engine already placed with this stamp is left as it is.
 */
async function place(from: { wasm: string; native?: string }, stamp: EngineStamp, dir: string): Promise<void> {
  const stampText = `${JSON.stringify(stamp, null, 2)}\n`;
  const placedStamp = await readFile(join(dir, 'engine.json'), 'utf8').catch(() => undefined);
  const sameSize = async (source: string, name: string) =>
    (await stat(join(dir, name)).catch(() => undefined))?.size === (await stat(source)).size;
  if (
    placedStamp === stampText &&
    (await sameSize(from.wasm, 'engine.wasm')) &&
    (from.native === undefined || (await sameSize(from.native, 'engine-native')))
  )
    return;
  await mkdir(dir, { recursive: true });
  const aside = (name: string) => join(dir, `.${name}.${process.pid}`);
  const put = async (source: string, name: string) => {
    await copyFile(source, aside(name));
    await rename(aside(name), join(dir, name));
  };
  await put(from.wasm, 'engine.wasm');
  if (from.native !== undefined) await put(from.native, 'engine-native');
  // Last, so that a stamp that matches says both files are in place.
  await writeFile(aside('engine.json'), stampText);
  await rename(aside('engine.json'), join(dir, 'engine.json'));
}

/**
 * Copies the engine that `build:engine` placed beside the host into `into`, the host's folder in a compiled copy
 * of src/ (dist/, the bench's build); false when none is built.
 */
export async function placeBuiltEngine(into: string): Promise<boolean> {
  let stamp: EngineStamp;
  try {
    stamp = JSON.parse(await readFile(join(PLACED_ENGINE_DIR, 'engine.json'), 'utf8')) as EngineStamp;
  } catch {
    return false;
  }
  const native = join(PLACED_ENGINE_DIR, 'engine-native');
  const nativeBuilt = await stat(native).then(
    () => true,
    () => false,
  );
  await place({ wasm: join(PLACED_ENGINE_DIR, 'engine.wasm'), ...(nativeBuilt ? { native } : {}) }, stamp, into);
  return true;
}

/** What `npm run build:engine` does: the engine built (or found in the cache) and placed beside its host in src/. */
export async function buildAndPlaceEngine(opts: {
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}): Promise<EngineBuild> {
  const built = await buildEngine(opts);
  if ('path' in built) await place({ wasm: built.path, native: built.nativePath }, built.stamp, PLACED_ENGINE_DIR);
  return built;
}

async function main(args: string[]): Promise<number> {
  const log = (line: string) => process.stderr.write(`build:engine: ${line}\n`);
  const placeAt = args.indexOf('--place');
  const into = placeAt < 0 ? undefined : args[placeAt + 1];
  if (placeAt >= 0 && !into) throw new Error('--place needs a folder');
  if (args.includes('--if-go')) {
    // npm ci: a machine without Go (or whose build fails) still installs; only check() and crdgate check need it.
    const built = await buildAndPlaceEngine({ log });
    if ('unavailable' in built) {
      log(
        `${built.unavailable}; going on without it: all but crdgate check and crdgate/testing's check() works (npm run build:engine builds it later)`,
      );
      return 0;
    }
    if (into) await placeBuiltEngine(into);
    log(
      `the API server engine (kube-apiserver ${built.stamp.kubernetes}, ${built.stamp.sourceHash}) is in ${into ?? PLACED_ENGINE_DIR}`,
    );
    return 0;
  }
  if (into) {
    if (await placeBuiltEngine(into)) log(`copied the API server engine into ${into}`);
    else
      log(
        `the API server engine is not built, so ${into} goes without it: crdgate check and crdgate/testing's check() need it (npm run build:engine)`,
      );
    return 0;
  }
  const built = await buildAndPlaceEngine({ log });
  if ('unavailable' in built) {
    log(built.unavailable);
    return 1;
  }
  log(
    `the API server engine (kube-apiserver ${built.stamp.kubernetes}, ${built.stamp.sourceHash}) is in ${PLACED_ENGINE_DIR}`,
  );
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
