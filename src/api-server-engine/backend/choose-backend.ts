// Which engine runs: the native process where its binary is beside the host (built wherever Go built the engine:
// a checkout after npm ci, crdgate's image), else the WebAssembly build (the npm tarball carries it). CRDGATE_ENGINE
// chooses one (native or wasm); the choice is logged once.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { engineName, type EngineBackend, type EngineKind } from './engine-backend.ts';
import { NativeBackend } from './native-backend.ts';
import { WasmBackend } from './wasm-backend.ts';

/** Where the host finds the engine: beside engine.ts, in src/ as `npm run build:engine` puts it, in dist/ as packed. */
export const ENGINE_WASM_PATH = fileURLToPath(new URL('../engine.wasm', import.meta.url));
export const ENGINE_NATIVE_PATH = fileURLToPath(new URL('../engine-native', import.meta.url));

/** What the engine says beyond its answers: which engine runs (info), and what goes wrong around it (warn). */
export interface EngineLog {
  info(line: string): void;
  warn(line: string): void;
}

export interface EngineSettings {
  /** CRDGATE_ENGINE: native or wasm; unset, the native one where it is built. */
  asked: EngineKind | undefined;
  /** CRDGATE_ENGINE_TIMEOUT: seconds an answer of the native process may take before it counts as hung. */
  answerTimeoutMs: number;
  /** CRDGATE_ENGINE_GOMEMLIMIT: the native process's soft memory limit. */
  memoryLimit: string;
}

export const DEFAULT_ANSWER_TIMEOUT_S = 60;
export const DEFAULT_ENGINE_MEMORY_LIMIT = '1GiB';

/** The settings the environment gives, or a sentence naming the variable that is wrong. */
export function engineSettingsOf(env: NodeJS.ProcessEnv): EngineSettings | string {
  const asked = env['CRDGATE_ENGINE'] || undefined;
  if (asked !== undefined && asked !== 'native' && asked !== 'wasm')
    return `CRDGATE_ENGINE must be native or wasm (or unset, for the native engine where it is built), got ${JSON.stringify(asked)}`;
  const timeout = env['CRDGATE_ENGINE_TIMEOUT'] || String(DEFAULT_ANSWER_TIMEOUT_S);
  const seconds = Number(timeout);
  if (!(Number.isFinite(seconds) && seconds > 0))
    return `CRDGATE_ENGINE_TIMEOUT must be a number of seconds above 0, got ${JSON.stringify(timeout)}`;
  const memoryLimit = env['CRDGATE_ENGINE_GOMEMLIMIT'] || DEFAULT_ENGINE_MEMORY_LIMIT;
  if (!/^\d+(B|KiB|MiB|GiB|TiB)?$/.test(memoryLimit))
    return `CRDGATE_ENGINE_GOMEMLIMIT must be a size as Go's GOMEMLIMIT reads one (such as 512MiB or 2GiB), got ${JSON.stringify(memoryLimit)}`;
  return { asked, answerTimeoutMs: seconds * 1000, memoryLimit };
}

export type BackendChoice = { backend: EngineBackend; why: string } | { unavailable: EngineKind | 'any' };

/** The engine to run under these settings, and why; or which one is missing. */
export function chooseBackend(settings: EngineSettings, log: EngineLog): BackendChoice {
  const nativeBuilt = existsSync(ENGINE_NATIVE_PATH);
  const wasmBuilt = existsSync(ENGINE_WASM_PATH);
  if (settings.asked === 'wasm')
    return wasmBuilt
      ? { backend: new WasmBackend(ENGINE_WASM_PATH), why: 'CRDGATE_ENGINE=wasm' }
      : { unavailable: 'wasm' };
  if (settings.asked === 'native' || nativeBuilt) {
    if (!nativeBuilt) return { unavailable: 'native' };
    const backend = nativeBackend(settings, log);
    return {
      backend,
      why: settings.asked === 'native' ? 'CRDGATE_ENGINE=native' : `it is built (${ENGINE_NATIVE_PATH})`,
    };
  }
  return wasmBuilt
    ? { backend: new WasmBackend(ENGINE_WASM_PATH), why: `no native engine is built beside it (${ENGINE_NATIVE_PATH})` }
    : { unavailable: 'any' };
}

export function nativeBackend(settings: EngineSettings, log: EngineLog, binary = ENGINE_NATIVE_PATH): NativeBackend {
  return new NativeBackend({
    binary,
    answerTimeoutMs: settings.answerTimeoutMs,
    memoryLimit: settings.memoryLimit,
    log: (line) => log.warn(`${engineName('native')}: ${line}`),
  });
}
