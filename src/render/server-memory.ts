import type { Contract } from '../contract/contract-definition.ts';

/** The memory of the server's container, in MiB: its request and limit, and the V8 heap cap inside them. */
export interface ServerMemory {
  requestMi: number;
  limitMi: number;
  heapMi: number;
}

/** What the manifests give the server, and why. */
export interface ServerMemoryPlan extends ServerMemory {
  /** The JSON of every version's schema of the contracts served, in bytes. */
  schemaBytes: number;
  /** What the contracts add to the built-in example's figures, in MiB (0 for the example, or contracts as small). */
  addedMi: number;
}

/**
 * The built-in example's figures: the request is the peak RSS under sustained admission load and after 1 MB
 * conversion reviews, with these heap flags, plus a fifth (npm run bench); the limit the peak under the most
 * memory-hungry input within the body limits, plus a fifth (bench/hostile-memory.ts); the heap cap well below it
 * (bodies, TLS and code live outside the heap).
 */
export const exampleServerMemory: ServerMemory = { requestMi: 180, limitMi: 592, heapMi: 192 };
/**
 * With --crd-gate the server also runs the API server engine: crdgate's image runs it natively, a process of its own
 * in the same container (its memory counts against the same limit). Measured by test/e2e/crd-gate-image.e2e.test.ts
 * (the image's `serve --crd-gate` with this Deployment's env, crdgate's process and the engine's together) on
 * 2026-11-29: 191-194 MiB resident once ready (the engine 27 MiB of it), then after judging 300 stored objects 212
 * MiB at the peak and resident, and after 1,500 (about what its 6 s read bound judged on the 2-core test machine;
 * 5,000 did not fit in it) 233-234 MiB at the peak and resident (the engine 31 MiB), the same after a second review
 * of it, against 97-104 MiB idle without the gate: up to 140 MiB more. Request and limit are the server's own plus
 * that, the limit's share with a fifth on top, as the server's own limit has. The WebAssembly engine, which crdgate
 * falls back to where the native one cannot start (or runs under CRDGATE_ENGINE=wasm), took the same test to 406-420
 * MiB at the peak and 331-375 resident: within the limit, past the request.
 */
export const crdGateServerMemory: ServerMemory = { requestMi: 320, limitMi: 760, heapMi: 192 };

/**
 * Heap a kind holds per byte of its schemas' JSON: its contract's copy of them (6-8 bytes: the objects, and the
 * strings the YAML parser keeps), and the validators compiled from them (10-23 bytes: ajv's generated code and its
 * schema cache), which the webhooks compile on first use and keep. Measured on 2026-11-29 on nine CRDs of
 * test/fixtures/crd-corpus (Argo's CronWorkflow 1,156 KB of schema: 8.9 + 18.6 MiB; Prometheus 471 KB: 6.0 + 7.3;
 * Gateway API's HTTPRoute 236 KB: 3.3 + 1.9; Zalando's postgresql 105 KB: 2.8 + 2.1, each with the contract module's
 * own code), as the heap after a full collection: what the heap cap must hold.
 */
export const heapBytesPerSchemaByte = 28;
/**
 * Resident memory a kind adds per byte of its schemas' JSON once its validators are compiled: the heap above, the
 * code V8 makes of them and keeps as source text too, and the collector's room. Measured with `npm run bench --
 * --many-kinds` on 2026-11-29, RSS after reviews of every kind against the built-in example's: 70 bytes for 14 of
 * the corpus' CRDs (2.2 MB of schemas), 62 for 30 (4.5 MB), 54 for 44 (6.9 MB). A version the API server validates
 * for the webhook (docs/live-crd.md) never compiles its validator; the figure counts them all, as an operator's
 * release that drifts from the contract's copy compiles them at once.
 */
export const residentBytesPerSchemaByte = 70;
/** The example's own schemas, already in its figures. */
const exampleSchemaBytes = 8 * 1024;
const mebibyte = 1024 * 1024;

/**
 * The memory the server's container gets for these contracts: the example's figures (or the CRD gate's), plus what
 * the contracts' schemas hold beyond the example's: their heap on the heap cap, their resident memory on the
 * request and the limit alike. A request or limit given (`manifests --memory-request`, `--memory-limit`) wins; the
 * heap cap then keeps the example's room below the limit.
 */
export function serverMemoryFor(
  contracts: readonly Contract[],
  options: { crdGate?: boolean; requestMi?: number; limitMi?: number } = {},
): ServerMemoryPlan {
  const base = options.crdGate ? crdGateServerMemory : exampleServerMemory;
  const schemaBytes = contracts
    .flatMap((contract) => contract.versions)
    .reduce((sum, version) => sum + JSON.stringify(version.schema).length, 0);
  const beyondExample = Math.max(0, schemaBytes - exampleSchemaBytes);
  const addedHeapMi = Math.ceil((beyondExample * heapBytesPerSchemaByte) / mebibyte);
  const addedMi = Math.ceil((beyondExample * residentBytesPerSchemaByte) / mebibyte);
  const limitMi = options.limitMi ?? Math.max(base.limitMi + addedMi, options.requestMi ?? 0);
  const requestMi = options.requestMi ?? Math.min(base.requestMi + addedMi, limitMi);
  const room = base.limitMi - base.heapMi;
  const heapMi =
    options.limitMi === undefined ? base.heapMi + addedHeapMi : Math.max(64, Math.min(limitMi - room, limitMi / 2));
  return { requestMi, limitMi, heapMi: Math.floor(heapMi), schemaBytes, addedMi };
}
