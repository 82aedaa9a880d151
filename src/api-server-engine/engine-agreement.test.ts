import { describe, expect, it } from 'vitest';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import { readCorpus, type CorpusCrd } from '../../test/fixtures/crd-corpus/corpus.ts';
import { ENGINE_NATIVE_PATH, ENGINE_WASM_PATH, nativeBackend } from './backend/choose-backend.ts';
import { Operation, type EngineBackend } from './backend/engine-backend.ts';
import { WasmBackend } from './backend/wasm-backend.ts';
import { existsSync } from 'node:fs';

// The native engine and the WebAssembly one are one Go package built twice: they must answer every request alike,
// byte for byte. Asked here the same requests, in the same order, about the real CRDs of the corpus (every one,
// compiled in both) and objects of each served version: the upstream samples, and objects made from the version's
// schema with a seeded generator that fills some fields, leaves others out, and puts a value of the wrong type or an
// unknown field here and there, so that pruning, defaulting, the schema's and the CEL rules' errors all answer.

/**
 * `npm test` asks about every other CRD of the corpus, with 3 objects made per served version (the samples come on
 * top), in about a minute; CRDGATE_ENGINE_AGREEMENT=all asks about every CRD, with 6 (three minutes).
 */
const everyCrd = process.env['CRDGATE_ENGINE_AGREEMENT'] === 'all';
const madePerVersion = everyCrd ? 6 : 3;

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  enum?: unknown[];
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
};

/** mulberry32: a small seeded generator, so that a failure names objects a rerun makes again. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function valueOf(schema: Schema, random: () => number, depth: number): unknown {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  if (random() < 0.06) return pick([null, 'wrong', 7, true, [], {}]);
  if (schema.enum !== undefined && schema.enum.length > 0 && random() < 0.9) return pick(schema.enum);
  if (schema['x-kubernetes-int-or-string']) return pick([1, 80, '50%', 'http']);
  switch (schema.type) {
    case 'object': {
      if (depth <= 0) return {};
      const object: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        if (required.has(name) || random() < 0.45) object[name] = valueOf(property, random, depth - 1);
      if (typeof schema.additionalProperties === 'object')
        for (let i = Math.floor(random() * 3); i > 0; i--)
          object[`key${i}`] = valueOf(schema.additionalProperties, random, depth - 1);
      if (random() < 0.05) object['unknownField'] = 'x';
      return object;
    }
    case 'array':
      return Array.from({ length: Math.floor(random() * 3) }, () => valueOf(schema.items ?? {}, random, depth - 1));
    case 'string':
      return pick(['', 'a', 'name-1', '10Gi', '2026-01-01T00:00:00Z', 'http://example.com', 'x'.repeat(300)]);
    case 'integer':
      return pick([0, 1, -1, 3, 65536, 2 ** 40]);
    case 'number':
      return pick([0, 0.5, -2, 1e9]);
    case 'boolean':
      return random() < 0.5;
    default:
      return pick(['any', 1, { a: 1 }, [1]]);
  }
}

interface RawAnswer {
  status?: { message?: string; causes?: Array<{ field: string; detail: string }> };
  warnings?: string[];
}

/**
 * The answer with its field errors and warnings in one order. kube-apiserver lists the errors of an object's
 * properties in Go's map order, which changes from run to run (two runs of one engine differ there too): the same
 * answer is the same errors and the same message around them, in any order.
 */
function canonical(answer: string): string {
  const parsed = JSON.parse(answer) as RawAnswer;
  const { status } = parsed;
  if (parsed.warnings) parsed.warnings = [...parsed.warnings].sort();
  if (status?.causes === undefined) return JSON.stringify(parsed);
  const rendered = [...new Set(status.causes.map((cause) => `${cause.field}: ${cause.detail}`))];
  let message = status.message ?? '';
  // Each error once in the message, whatever its place: taken out, the rest of the message is what must match.
  for (const error of [...rendered].sort((a, b) => b.length - a.length)) message = message.replace(error, '\u0000');
  return JSON.stringify({
    ...parsed,
    status: {
      ...status,
      message: `${message} ${JSON.stringify(rendered.sort())}`,
      causes: [...status.causes].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
    },
  });
}

interface ServedVersion {
  name: string;
  served: boolean;
  schema?: { openAPIV3Schema?: Schema };
}

/** The requests about one CRD: its load, then a create and an update of each object, in every served version. */
function requestsAbout(entry: CorpusCrd, seed: number): Array<{ operation: Operation; payload: unknown }> {
  const random = generator(seed);
  const spec = entry.crd['spec'] as { group: string; names: { kind: string }; versions: ServedVersion[] };
  const requests: Array<{ operation: Operation; payload: unknown }> = [];
  // A sample with only a generateName would be named at random (as kube-apiserver names it): named here instead.
  const samples = entry.samples
    .flatMap((sample) => sample.documents)
    .map((sample) => {
      const metadata = (sample['metadata'] ?? {}) as { name?: string; generateName?: string };
      return metadata.name === undefined && metadata.generateName !== undefined
        ? { ...sample, metadata: { ...metadata, name: `${metadata.generateName}x` } }
        : sample;
    });
  for (const version of spec.versions.filter((v) => v.served)) {
    const apiVersion = `${spec.group}/${version.name}`;
    const schema = version.schema?.openAPIV3Schema ?? {};
    const made = Array.from({ length: madePerVersion }, (_, i) => ({
      ...(valueOf(schema, random, 6) as Record<string, unknown>),
      apiVersion,
      kind: spec.names.kind,
      metadata: { name: `made-${i}`, namespace: 'default' },
    }));
    const objects = [...samples.filter((sample) => sample['apiVersion'] === apiVersion), ...made];
    objects.forEach((object, i) => {
      requests.push({ operation: Operation.judge, payload: { operation: 'CREATE', object } });
      const old = objects[(i + 1) % objects.length];
      requests.push({ operation: Operation.judge, payload: { operation: 'UPDATE', object, oldObject: old } });
      requests.push({ operation: Operation.judge, payload: { operation: 'CREATE', object, asItStands: true } });
    });
  }
  return requests;
}

const missing = [ENGINE_NATIVE_PATH, ENGINE_WASM_PATH].filter((path) => !existsSync(path));

describe.skipIf(
  missingPrerequisite(
    'the agreement of the native and WebAssembly engines',
    missing.length > 0 ? `${missing.join(' and ')} not built (npm run build:engine)` : undefined,
  ),
)('the native and the WebAssembly engine', () => {
  it('answer alike, byte for byte, about the CRDs of the corpus and objects of each served version', () => {
    const settings = { asked: 'native' as const, answerTimeoutMs: 120_000, memoryLimit: '1GiB' };
    const engines: EngineBackend[] = [
      nativeBackend(settings, { info: () => {}, warn: () => {} }),
      new WasmBackend(ENGINE_WASM_PATH),
    ];
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const spent = new Map<EngineBackend, number>();
    const ask = (engine: EngineBackend, operation: Operation, handle: number, payload: string) => {
      const started = performance.now();
      const answer = decoder.decode(engine.call(operation, handle, encoder.encode(payload), 'the request'));
      spent.set(engine, (spent.get(engine) ?? 0) + performance.now() - started);
      return answer;
    };
    const differences: string[] = [];
    let asked = 0;
    let refused = 0;
    let inAnotherOrder = 0;
    try {
      readCorpus().crds.forEach((entry, index) => {
        if (!everyCrd && index % 2 === 1) return;
        const crd = JSON.stringify(entry.crd);
        const loads = engines.map((engine) => ask(engine, Operation.load, 0, crd));
        asked++;
        if (loads[0] !== loads[1]) differences.push(`${entry.id} load: ${loads[0]} | ${loads[1]}`);
        const handles = loads.map((load) => (JSON.parse(load) as { handle?: number }).handle);
        if (handles[0] === undefined || handles[1] === undefined) return;
        for (const request of requestsAbout(entry, index + 1)) {
          const payload = JSON.stringify(request.payload);
          const answers = engines.map((engine, i) => ask(engine, request.operation, handles[i]!, payload));
          asked++;
          if (answers[0]!.startsWith('{"allowed":false')) refused++;
          if (answers[0] === answers[1]) continue;
          if (canonical(answers[0]!) === canonical(answers[1]!)) inAnotherOrder++;
          else if (differences.length < 5)
            differences.push(`${entry.id} ${payload.slice(0, 200)}:\n  native ${answers[0]}\n  wasm   ${answers[1]}`);
          else differences.push(entry.id);
        }
        for (const [i, engine] of engines.entries())
          engine.call(Operation.forget, handles[i]!, new Uint8Array(), 'forget');
      });
    } finally {
      for (const engine of engines) engine.stop();
    }
    const seconds = (engine: EngineBackend) => `${((spent.get(engine) ?? 0) / 1000).toFixed(1)} s ${engine.kind}`;
    process.stdout.write(
      `engine agreement: ${asked} requests (${refused} refused), ${asked - inAnotherOrder - differences.length} alike to the byte, ${inAnotherOrder} with their errors in another order, ${differences.length} different; ${engines.map(seconds).join(', ')}\n`,
    );
    expect(differences).toEqual([]);
    // Most answers are alike to the byte; the rest differ only in the order of their errors.
    expect(inAnotherOrder).toBeLessThan(asked / 4);
    // The requests reach both the allowed and the refused paths, in numbers.
    expect(asked).toBeGreaterThan(everyCrd ? 15_000 : 5000);
    expect(refused).toBeGreaterThan(asked / 5);
    expect(asked - refused).toBeGreaterThan(asked / 5);
  }, 900_000);
});
