import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../api-server-engine/engine.ts';
import { derivedDefault, staticDefault, type FormedDefaulter } from '../contract/defaults/library-defaults.ts';
import type { Defaulter } from '../contract/contract-definition.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { geoDatabaseDefaults } from '../contracts/geodatabase/defaults.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { celValue, dyn, jsonOfCelValue } from './cel-json.fixture.ts';
import { Binding, type Cel } from './cel.ts';
import { compileContractDefaults, compileDefaultForm, type PatchOperation } from './compile-defaults.ts';

// Each library default and its compiled CEL, fed the same object, must leave it the same: this table holds
// compile-defaults.ts to library-defaults.ts without a cluster (test/e2e/mutating-floor.e2e.test.ts does it through
// a real API server, for the objects it stores).
//
// The CEL runs in kube-apiserver's own CEL environment (the engine's evaluateCel), `object` declared dyn and bound to
// the object as JSON, as a policy sees it. One thing a MutatingAdmissionPolicy adds is not there: the JSONPatch type,
// which the engine's environment (a CRD rule's) does not declare and a declaration (cel.expr.Decl) cannot add. So the
// expression is compiled with each JSONPatch{op: "add", path, value} written as the map {"path": dyn(path), "value":
// dyn(value)} instead; everything around it, guards, pointers, values and comprehensions, is the policy's text, and
// the operations are applied here as the API server applies an add (RFC 6902).

const asMap: PatchOperation = (path, value) => ({
  text: `{"path": dyn(${path.text}), "value": dyn(${value.text})}`,
  binds: Binding.Primary,
});

/**
 * What the compiled CEL of one default does to each object: its operations, applied. All objects are bound as one
 * list and the expression mapped over it, one evaluation for them all (an evaluation costs the engine a few ms).
 */
function celApplies(expression: Cel, objects: readonly unknown[]): unknown[] {
  const answer = evaluateCel({
    expr: `objects.map(object, ${expression.text})`,
    typeEnv: [dyn('objects')],
    bindings: { objects: celValue(objects) },
  });
  if (answer.compileError !== undefined || answer.evalError !== undefined)
    throw new Error(`${expression.text}: ${answer.compileError ?? answer.evalError}`);
  const operations = jsonOfCelValue(answer.value!) as { path: string; value: unknown }[][];
  return objects.map((object, position) => operations[position]!.reduce(add, object));
}

/** RFC 6902 add of a member: the paths a default writes end in an object's key. */
function add(document: unknown, { path, value }: { path: string; value: unknown }): unknown {
  const copy = structuredClone(document) as Record<string, unknown>;
  const keys = path
    .slice(1)
    .split('/')
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null)
      throw new Error(`${path}: no object at ${key}, where the API server's add would fail the request`);
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
  return copy;
}

function compiledOf(defaulter: Defaulter): Cel {
  const compiled = compileDefaultForm((defaulter as FormedDefaulter).form, asMap);
  if (typeof compiled === 'string') throw new Error(compiled);
  return compiled;
}

/**
 * Each default applied in order to every object, by the webhook's function and by the CEL; after each, the objects
 * must be equal (as JSON: the order of an object's keys means nothing to the API server, which stores them sorted).
 */
function disagreements(defaulters: readonly Defaulter[], objects: readonly KubeObject[]): string[] {
  let [webhook, cel]: [KubeObject[], unknown[]] = [[...objects], [...objects]];
  for (const defaulter of defaulters) {
    webhook = webhook.map((object) => defaulter(object));
    cel = celApplies(compiledOf(defaulter), cel);
    const found = objects.flatMap((object, position) =>
      isDeepStrictEqual(webhook[position], cel[position])
        ? []
        : [
            `${(defaulter as FormedDefaulter).form.path} on ${JSON.stringify(object)}: webhook ${JSON.stringify(webhook[position])}, CEL ${JSON.stringify(cel[position])}`,
          ],
    );
    if (found.length > 0) return found.slice(0, 5);
  }
  return [];
}

const sameForEvery = (defaulters: readonly Defaulter[], objects: fc.Arbitrary<KubeObject>, count: number) => {
  const drawn = fc.sample(objects, { numRuns: count, seed: 41 });
  expect(new Set(drawn.map((object) => JSON.stringify(object))).size, 'distinct objects drawn').toBeGreaterThan(
    count / 4,
  );
  expect(disagreements(defaulters, drawn)).toEqual([]);
};

const absent = Symbol('absent');
const some = <T>(...values: T[]) => fc.constantFrom(...values);
/** An object of the fields given, leaving out those drawn absent. */
const record = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record(fields).map((drawn) => Object.fromEntries(Object.entries(drawn).filter(([, value]) => value !== absent)));

const releases = some<unknown>(
  absent,
  '16.4',
  '17.0',
  '16',
  '0.1',
  '16.04',
  '016.1',
  'v16',
  '',
  '16.',
  '123456789012345678901.2',
  16,
  null,
  ['16.4'],
);
const labelMaps = some<unknown>(
  absent,
  {},
  { team: 'maps' },
  { 'geo.example.com/postgres-major': '14' },
  { 'geo.example.com/postgres-major': '16', team: 'maps' },
  'x',
  null,
);
const cache = record({
  name: some<unknown>(absent, 'tiles'),
  memory: some<unknown>(absent, '1Gi'),
  version: some<unknown>(absent, '7.4', null, 7),
  replicas: some<unknown>(absent, 3, null, '2'),
});
const caches = fc.oneof(
  some<unknown>(absent, null, 'many', {}),
  fc.array(fc.oneof(cache, some<unknown>('junk', 3, null, [])), { maxLength: 4 }),
);
const geoSpec = record({
  postgres: fc.oneof(
    record({ version: releases, postgis: some<unknown>(absent, '3.4.2') }),
    some<unknown>(absent, 7, null),
  ),
  readReplicas: some<unknown>(absent, 0, 3, null, 'two'),
  caches,
  storage: some<unknown>(absent, { size: '20Gi' }),
});
const geoDatabases: fc.Arbitrary<KubeObject> = fc
  .record({ spec: fc.oneof(geoSpec, some<unknown>(absent, 'spec', null, [])), labels: labelMaps })
  .map(
    ({ spec, labels }) =>
      ({
        apiVersion: 'geo.example.com/v1',
        kind: 'GeoDatabase',
        metadata: { name: 'db', namespace: 'maps', ...(labels === absent ? {} : { labels }) },
        ...(spec === absent ? {} : { spec }),
      }) as KubeObject,
  );

describe('the compiled defaults set what the webhook sets, through kube-apiserver CEL', () => {
  it("GeoDatabase's defaults, on objects well and ill typed", () => {
    expect(
      compileContractDefaults(geoDatabaseContract()).coverage.every((entry) => entry.enforcedBy === 'policy'),
    ).toBe(true);
    sameForEvery(geoDatabaseDefaults, geoDatabases, 400);
  });

  it('values of every JSON kind, keys CEL cannot write after a dot, labels and annotations made or added to', () => {
    const defaulters = [
      staticDefault('spec.settings', {
        size: 1,
        name: 'x',
        ratio: 0.5,
        on: true,
        none: null,
        list: [1, 'a'],
        nested: { deep: [[], [1.5]] },
      }),
      staticDefault('spec.settings.sizes', [1, 2, 3]),
      staticDefault('spec.huge', 2 ** 60),
      staticDefault('spec.with-dash.namespace', 'reserved word'),
      staticDefault('spec.list[*].in', -1),
      staticDefault('metadata.annotations[example.com/a~b]', 'tilde and slash'),
      staticDefault('metadata.labels[team]', ''),
    ];
    const objects: fc.Arbitrary<KubeObject> = fc
      .record({
        spec: record({
          settings: some<unknown>(absent, {}, { sizes: [] }, 'x'),
          huge: some<unknown>(absent, 1),
          'with-dash': some<unknown>(absent, {}, { namespace: 'set' }, 3),
          list: some<unknown>(absent, [], [{}, { in: 2 }, 'x', { out: 1 }], {}),
        }),
        annotations: some<unknown>(absent, {}, { 'example.com/a~b': 'kept' }, { other: 'x' }),
        labels: some<unknown>(absent, { team: 'geo' }, {}),
      })
      .map(
        ({ spec, annotations, labels }) =>
          ({
            apiVersion: 'example.com/v1',
            kind: 'Thing',
            metadata: {
              name: 't',
              ...(annotations === absent ? {} : { annotations }),
              ...(labels === absent ? {} : { labels }),
            },
            spec,
          }) as KubeObject,
      );
    sameForEvery(defaulters, objects, 300);
  });

  it('derived defaults: copied, filled only where absent or kept in step, into each item of a list too', () => {
    const defaulters = [
      derivedDefault('spec.copy', { from: 'spec.source', compute: 'copy' }),
      derivedDefault('spec.kept', { from: 'spec.source', compute: 'copy', keepInStep: true }),
      derivedDefault('spec.items[*].major', { from: 'spec.release', compute: 'release-major', keepInStep: true }),
      derivedDefault('metadata.labels[example.com/major]', { from: 'spec.release', compute: 'release-major' }),
    ];
    const objects: fc.Arbitrary<KubeObject> = record({
      source: some<unknown>(absent, 1, 1.5, 'a', null, [1, 2], { a: [true] }, false),
      copy: some<unknown>(absent, 1, 'other'),
      kept: some<unknown>(absent, 1, 'a', [1, 2], { a: [true] }),
      release: releases,
      items: some<unknown>(absent, [], [{}, { major: '16' }, { major: '9' }, 'x']),
    }).map(
      (spec) =>
        ({
          apiVersion: 'example.com/v1',
          kind: 'Thing',
          metadata: { name: 't', labels: { 'example.com/major': 'kept' } },
          spec,
        }) as KubeObject,
    );
    sameForEvery(defaulters, objects, 300);
  });
});
