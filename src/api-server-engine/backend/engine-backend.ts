// What runs the engine's Go code: a native process of the engine built for this machine, or its WebAssembly build
// inside Node. Both take the same requests and give the same answers, byte for byte: an operation, a handle and a
// JSON document in, a JSON document out (go/serve_native.go and go/exports.go carry them).

/** The engine's operations, numbered as go/serve_native.go numbers them. */
export const Operation = { load: 1, judge: 2, forget: 3, evaluate: 4, match: 5 } as const;
export type Operation = (typeof Operation)[keyof typeof Operation];

export type EngineKind = 'native' | 'wasm';

export interface EngineBackend {
  readonly kind: EngineKind;
  /**
   * Counts the engine's starts: a handle `load` gave is valid in the start it came from only. A call starts the
   * engine when it is not running (before the first call, after a failure); this is the start it will run in.
   */
  start(): number;
  /** The start running now, undefined while stopped (a call would start another). */
  current(): number | undefined;
  /**
   * One request, answered before it returns: the answer's JSON bytes. Throws EngineFailedError when the engine
   * failed (a trap, the process exiting or hanging): it is stopped then, and the next call starts another.
   */
  call(operation: Operation, handle: number, payload: Uint8Array, what: string): Uint8Array;
  /** The engine's memory in bytes now: WebAssembly's linear memory, or the native process's resident set. */
  memoryBytes(): number;
  /** Stops the engine; a later call starts it again. */
  stop(): void;
}

/** The engine failed while answering (the request is not answered); the engine was stopped. */
export class EngineFailedError extends Error {
  override name = 'EngineFailedError';
}

/** How each engine names itself in a message: what failed, and where to look. */
export function engineName(kind: EngineKind): string {
  return kind === 'native' ? 'the native API server engine' : 'the API server engine (WebAssembly)';
}
