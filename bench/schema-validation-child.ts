import { readFileSync } from 'node:fs';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { createSchemaCompiler, defaultMaxPartNodes, goRegExpEngine } from '../src/contract/schema/compile-schema.ts';
import type { JSONSchemaProps } from '../src/contract/schema/json-schema-props.ts';
import { fullValue, largeStructuralSchema } from '../src/contract/schema/large-schema.fixture.ts';
import { geoDatabaseContract } from '../src/contracts/geodatabase/index.ts';
import { keepValidatorsFromMaglev } from '../src/server/validator-jit.ts';
import { patternHeavyObject, patternHeavySchema } from './pattern-schema.ts';

// One process per measurement (large-schema-benchmark.ts starts it with the Deployment's NODE_OPTIONS): compiles one
// schema in one layout, validates valid objects until V8 has optimised the validator, then times a window of
// validations and prints the rate per second of the process's CPU time (on a shared machine wall time moves with
// the neighbours' load) and the process's peak RSS (VmHWM: V8's compilers allocate outside the heap, and
// that is the memory the pod is killed for). Linux only.
//   node bench/schema-validation-child.ts large|geodatabase|patterns whole|served|regexp WARMUP MEASURE

/** ECMAScript's RegExp, as crdgate compiled patterns before it compiled them as Go's regexp (go-regexp.ts). */
const ecmaScriptRegExp: RegExpEngine = Object.assign((pattern: string, flags: string) => new RegExp(pattern, flags), {
  code: 'new RegExp',
});

/**
 * `whole`: one function per schema, optimised by Maglev and TurboFan, as crdgate ran validators before; `served`: in
 * parts (split-schema.ts) and kept from Maglev (validator-jit.ts), as `crdgate serve` runs them now; `regexp`: served,
 * but with patterns compiled as ECMAScript RegExp, as crdgate did before it matched them as Go does.
 */
export const schemaLayouts = {
  whole: { maxPartNodes: Infinity, keptFromMaglev: false, regExp: goRegExpEngine },
  served: { maxPartNodes: defaultMaxPartNodes, keptFromMaglev: true, regExp: goRegExpEngine },
  regexp: { maxPartNodes: defaultMaxPartNodes, keptFromMaglev: true, regExp: () => ecmaScriptRegExp },
} as const;
export type SchemaLayoutName = keyof typeof schemaLayouts;

export const benchSchemas = ['large', 'geodatabase', 'patterns'] as const;
export type BenchSchemaName = (typeof benchSchemas)[number];

export interface SchemaValidationFigures {
  /** CPU time to compile the schema (its patterns included), in milliseconds. */
  compileCpuMs: number;
  /** Per second of the process's CPU time (user and system) in the timed window. */
  validationsPerCpuSecond: number;
  peakRssMiB: number;
}

function schemaAndObjects(name: BenchSchemaName): { schema: JSONSchemaProps; objects: unknown[] } {
  if (name === 'patterns') return { schema: patternHeavySchema(), objects: [patternHeavyObject()] };
  if (name === 'large') {
    const schema = largeStructuralSchema();
    return { schema, objects: Array.from({ length: 16 }, (_, variant) => fullValue(schema, variant)) };
  }
  const hub = geoDatabaseContract().versions.find((version) => version.name === 'v1')!;
  const review = JSON.parse(
    readFileSync(new URL('../test/fixtures/admission/create-geodatabase.json', import.meta.url), 'utf8'),
  ) as { request: { object: unknown } };
  return { schema: hub.schema, objects: [review.request.object] };
}

function peakRssMiB(): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!match) throw new Error('no VmHWM in /proc/self/status');
  return Number(match[1]) / 1024;
}

function main(): void {
  const [schemaName, layoutName, warmupText, measureText] = process.argv.slice(2);
  if (!benchSchemas.includes(schemaName as BenchSchemaName) || !(layoutName! in schemaLayouts))
    throw new Error(`usage: SCHEMA LAYOUT WARMUP MEASURE, got ${process.argv.slice(2).join(' ')}`);
  const { schema, objects } = schemaAndObjects(schemaName as BenchSchemaName);
  const layout = schemaLayouts[layoutName as SchemaLayoutName];
  if (layout.keptFromMaglev) keepValidatorsFromMaglev();
  const compileStart = process.cpuUsage();
  const validate = createSchemaCompiler(layout.maxPartNodes, layout.regExp()).compile(schema);
  const compiled = process.cpuUsage(compileStart);
  const run = (count: number) => {
    for (let index = 0; index < count; index++) {
      const errors = validate(objects[index % objects.length]);
      if (errors.length > 0) throw new Error(`a bench object is invalid: ${JSON.stringify(errors[0])}`);
    }
  };
  run(Number(warmupText));
  const count = Number(measureText);
  const cpuBefore = process.cpuUsage();
  run(count);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const figures: SchemaValidationFigures = {
    compileCpuMs: (compiled.user + compiled.system) / 1e3,
    validationsPerCpuSecond: count / cpuSeconds,
    peakRssMiB: peakRssMiB(),
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

if (import.meta.main) main();
