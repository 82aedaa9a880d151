import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../../contracts/geodatabase/index.ts';
import type { FieldError } from '../values/field-error.ts';
import { createSchemaCompiler, fullReportValueLimit, type ObjectValidator } from './compile-schema.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { fullValue, largeStructuralSchema } from './large-schema.fixture.ts';
import { schemaValues } from './schema-values.fixture.ts';
import { countSchemaNodes, splitSchema } from './split-schema.ts';
import { toAjvSchema } from './to-ajv-schema.ts';

// A schema split into parts (split-schema.ts) must report exactly what the whole schema reports: every field error
// crdgate returns, with its field, type, message and path, in the same order. Values drawn valid from each schema
// (schema-values.fixture.ts), then broken in a few places: a value of another JSON type, null, a deleted field, an
// unknown field, an item more or less.

const runs = Number(process.env['CRDGATE_FUZZ_RUNS'] ?? 150);

const whole = createSchemaCompiler(Infinity);
/** Parts far smaller than the server's, so that even GeoDatabase's small schema is cut into many. */
const inTinyParts = createSchemaCompiler(3);
const asServed = createSchemaCompiler();

type Path = (string | number)[];

/** Every place in a value, the value itself included. */
function placesIn(value: unknown, path: Path = []): Path[] {
  const places = [path];
  if (Array.isArray(value)) value.forEach((item, index) => places.push(...placesIn(item, [...path, index])));
  else if (value !== null && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) places.push(...placesIn(child, [...path, key]));
  return places;
}

type Breakage = { kind: 'replace'; with: unknown } | { kind: 'delete' } | { kind: 'add'; key: string; with: unknown };

const breakage: fc.Arbitrary<Breakage> = fc.oneof(
  fc.record({
    kind: fc.constant('replace' as const),
    with: fc.oneof(
      fc.constantFrom(null, '', 'x', 0, -1, 1.5, true, [], {}, ['x'], { name: 7 }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const) }),
  fc.record({
    kind: fc.constant('add' as const),
    key: fc.constantFrom('colour', 'name', '__proto__', 'constructor', 'a.b'),
    with: fc.jsonValue({ maxDepth: 1 }),
  }),
);

/** The value with one breakage at the place `pick` points to (modulo their count); a copy, the value is not changed. */
function broken(value: unknown, pick: number, change: Breakage): unknown {
  const copy = structuredClone(value);
  const places = placesIn(copy);
  const path = places[pick % places.length]!;
  if (path.length === 0) return change.kind === 'replace' ? change.with : copy;
  let parent = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (change.kind === 'replace') parent[last] = change.with;
  else if (change.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else {
    const target = parent[last];
    // A copy of a list's first item: a duplicate where the list is a set or a map.
    if (Array.isArray(target)) target.push(target.length > 0 ? structuredClone(target[0]) : change.with);
    else if (target !== null && typeof target === 'object')
      Object.defineProperty(target, change.key, {
        value: change.with,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return copy;
}

const brokenValues = (valid: fc.Arbitrary<unknown>) =>
  fc
    .tuple(valid, fc.array(fc.tuple(fc.noBias(fc.nat({ max: 1_000_000 })), breakage), { minLength: 1, maxLength: 4 }))
    .map(([value, changes]) => changes.reduce((current, [pick, change]) => broken(current, pick, change), value));

interface Tally {
  cases: number;
  withErrors: number;
  errors: number;
  kinds: Set<string>;
}

function expectSameErrors(split: ObjectValidator, unsplit: ObjectValidator, values: readonly unknown[]): Tally {
  const tally: Tally = { cases: 0, withErrors: 0, errors: 0, kinds: new Set() };
  for (const value of values) {
    const expected: FieldError[] = unsplit(value);
    expect(split(value)).toEqual(expected);
    tally.cases++;
    if (expected.length > 0) tally.withErrors++;
    tally.errors += expected.length;
    for (const error of expected) tally.kinds.add(error.type);
  }
  return tally;
}

const geoDatabaseSchemas: [string, JSONSchemaProps][] = geoDatabaseContract().versions.map((version) => [
  version.name,
  version.schema,
]);

describe('a schema split into parts reports what the whole schema reports', () => {
  it('cuts the schemas under test into parts', () => {
    // Without this, the comparisons below could be comparing a schema with itself.
    for (const [, schema] of geoDatabaseSchemas)
      expect(
        Object.keys(splitSchema(toAjvSchema(schema, { resourceRoot: true }), 3)['definitions'] ?? {}).length,
      ).toBeGreaterThan(3);
    const large = toAjvSchema(largeStructuralSchema(), { resourceRoot: true });
    expect(countSchemaNodes(large)).toBeGreaterThan(2_000);
    expect(Object.keys(splitSchema(large, 25)['definitions'] ?? {}).length).toBeGreaterThan(50);
  });

  it.each(geoDatabaseSchemas)("GeoDatabase's %s schema, in parts of at most 3 nodes", (_version, schema) => {
    const values = fc.sample(brokenValues(schemaValues(schema)), { numRuns: runs, seed: 17 });
    const tally = expectSameErrors(inTinyParts.compile(schema), whole.compile(schema), values);
    expect(tally.withErrors).toBeGreaterThan(runs / 2);
    expect([...tally.kinds]).toEqual(
      expect.arrayContaining(['FieldValueTypeInvalid', 'FieldValueUnknown', 'FieldValueRequired']),
    );
  });

  it('a schema of 2,500 nodes, split as the server splits it', () => {
    const schema = largeStructuralSchema();
    const valid = fc.integer({ min: 0, max: 50 }).map((variant) => fullValue(schema, variant));
    const values = fc.sample(brokenValues(valid), { numRuns: runs, seed: 29 });
    const tally = expectSameErrors(asServed.compile(schema), whole.compile(schema), values);
    expect(tally.withErrors).toBeGreaterThan(runs / 2);
    expect([...tally.kinds]).toEqual(
      expect.arrayContaining([
        'FieldValueTypeInvalid',
        'FieldValueUnknown',
        'FieldValueRequired',
        'FieldValueNotSupported',
        'FieldValueInvalid',
        'FieldValueDuplicate',
      ]),
    );
  });

  it('an object too large for every error, reported by its first', () => {
    const schema = largeStructuralSchema();
    const value = fullValue(schema) as { spec: { section0: Record<string, unknown> } };
    value.spec.section0['object9'] = {
      name: 'x',
      object9: Array.from({ length: fullReportValueLimit }, (_, index) => index),
    };
    value.spec.section0['port3'] = 'not a port';
    const errors = asServed.compile(schema)(value);
    expect(errors.map((error) => error.type)).toEqual(['FieldValueTypeInvalid', 'FieldValueTooMany']);
    expect(errors).toEqual(whole.compile(schema)(value));
  });
});
