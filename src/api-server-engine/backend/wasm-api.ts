// The few parts of the WebAssembly JS API crdgate uses, typed here: TypeScript declares them only in its DOM
// library, which crdgate (a Node program) does not include.

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

export interface WasmModule {
  readonly __wasmModule?: never;
}

export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

interface WasmApi {
  Module: { new (bytes: Uint8Array): WasmModule; exports(module: WasmModule): Array<{ name: string; kind: string }> };
  Instance: new (module: WasmModule, imports: object) => WasmInstance;
  compile(bytes: Uint8Array): Promise<WasmModule>;
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
