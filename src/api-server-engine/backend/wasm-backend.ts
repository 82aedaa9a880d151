// The engine's WebAssembly build (a wasip1 reactor), run inside Node: the fallback where no native build is there,
// as in the npm tarball. Its exports take the same operations as the native process (see go/exports.go), through
// memory the engine allocates.
import { readFileSync } from 'node:fs';
import type { WASI as WasiClass } from 'node:wasi';
import { engineName, EngineFailedError, Operation, type EngineBackend } from './engine-backend.ts';
import { wasm, type WasmMemory } from './wasm-api.ts';

interface EngineExports {
  memory: WasmMemory;
  alloc(length: number): number;
  free(address: number): void;
  load(address: number, length: number): bigint;
  judge(handle: number, address: number, length: number): bigint;
  forget(handle: number): void;
  evaluate(address: number, length: number): bigint;
  match(address: number, length: number): bigint;
}

const FORGOTTEN = new TextEncoder().encode('{}');

export class WasmBackend implements EngineBackend {
  readonly kind = 'wasm';
  private running: EngineExports | undefined;
  private starts = 0;

  /** `path`: the module, read on the first call; a missing file is the caller's to report before. */
  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  start(): number {
    if (this.running) return this.starts;
    const bytes = readFileSync(this.path);
    const { WASI } = quietly(() => process.getBuiltinModule('node:wasi'));
    const wasi: WasiClass = new WASI({
      version: 'preview1',
      args: ['crdgate-api-server-engine'],
      // Linear memory stops at 4 GiB and never shrinks, and Go's collector, paced by GOGC alone, lets the heap grow
      // to twice what is live before it collects: a run over many large CRDs (a release series) ran out at 4 GiB
      // with far less live. A soft limit below the cap has it collect harder before it would grow past it.
      env: { GOMEMLIMIT: '3GiB' },
      returnOnExit: true,
    });
    const instance = new wasm.Instance(new wasm.Module(bytes), wasi.getImportObject());
    // Starts the Go runtime and runs every package's init (the CEL environments among them).
    wasi.initialize(instance as unknown as object);
    this.running = instance.exports as unknown as EngineExports;
    this.starts += 1;
    return this.starts;
  }

  current(): number | undefined {
    return this.running ? this.starts : undefined;
  }

  call(operation: Operation, handle: number, payload: Uint8Array, what: string): Uint8Array {
    this.start();
    const exports = this.running!;
    if (operation === Operation.forget) {
      exports.forget(handle);
      return FORGOTTEN;
    }
    // An i32 to JavaScript: past 2 GiB of memory the address would read as negative.
    const address = exports.alloc(payload.length) >>> 0;
    new Uint8Array(exports.memory.buffer, address, payload.length).set(payload);
    let packed: bigint;
    try {
      packed = BigInt.asUintN(64, invoke(exports, operation, handle, address, payload.length));
      exports.free(address);
    } catch (error) {
      // The Go side recovers its panics; what reaches here (out of memory, a trap) leaves the instance unusable.
      this.running = undefined;
      throw new EngineFailedError(
        `${engineName(this.kind)} failed on ${what} and was stopped: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    const answerAddress = Number(packed >> 32n);
    const answerLength = Number(packed & 0xffffffffn);
    // The memory may have grown during the call: read it through a fresh view, and copy it out before freeing.
    const answer = new Uint8Array(exports.memory.buffer, answerAddress, answerLength).slice();
    exports.free(answerAddress);
    return answer;
  }

  memoryBytes(): number {
    return this.running?.memory.buffer.byteLength ?? 0;
  }

  stop(): void {
    this.running = undefined;
  }
}

function invoke(exports: EngineExports, operation: Operation, handle: number, address: number, length: number): bigint {
  switch (operation) {
    case Operation.load:
      return exports.load(address, length);
    case Operation.judge:
      return exports.judge(handle, address, length);
    case Operation.evaluate:
      return exports.evaluate(address, length);
    case Operation.match:
      return exports.match(address, length);
    default:
      throw new Error(`unknown operation ${operation}`);
  }
}

/** node:wasi warns once that it is experimental; crdgate's output is not the place for that. */
function quietly<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(typeof warning === 'string' ? warning : warning.message).startsWith('WASI is an experimental feature'))
      return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}
