import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { byDirection, byReleaseStep, whenDifferent } from '../contract/fsa/comparisons.ts';
import { compareNumbers } from '../contract/fsa/classifier-form.ts';
import { fieldClassifier } from '../contract/fsa/field-classifier.ts';
import { keyedListClassifier } from '../contract/fsa/keyed-list-classifier.ts';
import type { Classifier } from '../contract/fsa/machine.ts';
import { isPlainObject } from '../contract/values/kube-object.ts';
import { readInteger, readQuantity, readString } from '../contract/fsa/value-readers.ts';
import { compareQuantities } from '../contract/values/quantity.ts';
import { compareVersions, parseVersion } from '../contract/values/release-version.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { evaluateCel } from '../api-server-engine/engine.ts';
import { celValue, dyn, withoutNulls } from './cel-json.fixture.ts';
import { ident, list, member, optionalMember, plus, str, type Cel } from './cel.ts';
import { compileClassifier, type CompareSite } from './compile-classifiers.ts';

// Each classifier and its compiled CEL, fed the same old and new specs, must count the same changes of each kind:
// the table is what holds compile-classifiers.ts to fieldClassifier and keyedListClassifier without a cluster.
//
// The CEL runs in kube-apiserver's own CEL environment (the engine's evaluateCel). What a ValidatingAdmissionPolicy
// adds is supplied so as not to change the meaning:
// - `object` and `oldObject` are declared dyn and bound to the two objects as JSON values: a policy sees a custom
//   object as unstructured JSON, typed by its values (a JSON integer an int, a fraction a double), not as a message.
// - `variables.x` cannot be bound: a policy variable may hold an optional, which a binding (cel.expr.Value) cannot
//   carry. It is inlined instead, in parentheses. A policy variable is a pure expression of the request evaluated at
//   most once, so reading it and inlining it cannot differ but in cost. Each classifier is compiled both ways: with
//   variables (as compile-machine names them) inlined, and with none (as inside list comprehensions).
// The counts are compared per kind; a CEL error where the classifier answers fails the table too.
//
// Values of another type than the schema's are kept apart: the API server refuses a new object holding one before
// any policy runs, unless the old object held it already (see the last tests).

const spec = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
const releaseSchema: JSONSchemaProps = { type: 'string', maxLength: 8 };
const cacheSchema: JSONSchemaProps = {
  type: 'array',
  maxItems: 8,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: spec({
    name: { type: 'string', maxLength: 16 },
    memory: { type: 'string', maxLength: 16 },
    tier: { type: 'string', maxLength: 16 },
  }),
};

const keyedBy = (keys: string[], properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: 'array',
  maxItems: 8,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': keys,
  items: { ...spec(properties), required: keys },
});

/** The spec's schema every classifier below reads a field of. */
const specSchema = spec({
  replicas: { type: 'integer' },
  size: { type: 'integer' },
  label: { type: 'string', maxLength: 63 },
  look: spec({ color: { type: 'string', maxLength: 16 } }),
  storage: spec({ size: { type: 'string', maxLength: 16 } }),
  version: releaseSchema,
  caches: cacheSchema,
  shards: cacheSchema,
  // Strimzi's JBOD volumes: keyed by an integer.
  volumes: keyedBy(['id'], { id: { type: 'integer' }, size: { type: 'string', maxLength: 16 } }),
  flags: keyedBy(['on'], { on: { type: 'boolean' }, note: { type: 'string', maxLength: 16 } }),
  ports: keyedBy(['port', 'protocol'], {
    port: { type: 'integer' },
    protocol: { type: 'string', maxLength: 8 },
    name: { type: 'string', maxLength: 16 },
  }),
});

const absent = Symbol('absent');
type Value = unknown;

const integers: Value[] = [absent, 0, 1, 2, -3, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, null];
const strings: Value[] = [absent, '', 'a', 'b', 'blue', 'A', 'ü', 'quote " and \\ backslash', null];
const quantities: Value[] = [
  absent,
  '1Gi',
  '1024Mi',
  '2Gi',
  '500m',
  '1.5G',
  '1.2345G',
  '1e3',
  '999999',
  '1000000',
  '10Pi',
  'x',
  null,
];
// With maxLength 8, the CEL reads releases of up to four parts; crdgate reads more, so the fifth is a boundary.
const releases: Value[] = [
  absent,
  '16.4',
  '16.10',
  '16.4.0',
  '17.0',
  '15.9.9',
  '16',
  '16.04',
  '1.2.3.4',
  '1.2.3.4.5',
  '999999999999999.1',
  '1000000000000000.1',
  'v16',
  '',
  null,
];
const cacheLists: Value[] = [
  absent,
  [],
  [{ name: 'a', memory: '1Gi', tier: 'hot' }],
  [{ name: 'a', memory: '2Gi', tier: 'hot' }],
  [{ name: 'a', memory: '1024Mi', tier: 'cold' }],
  [
    { name: 'a', memory: '1Gi' },
    { name: 'b', memory: '1Gi' },
  ],
  [
    { name: 'b', memory: '512Mi' },
    { name: 'a', memory: 'lots' },
  ],
  [{ name: 'c' }, { name: 'a' }],
  null,
];

const volumeLists: Value[] = [
  absent,
  [],
  [{ id: 0, size: '100Gi' }],
  [{ id: 0, size: '50Gi' }],
  [
    { id: 1, size: '100Gi' },
    { id: 0, size: '100Gi' },
  ],
  [
    { id: 1, size: '1Ti' },
    { id: 2, size: 'lots' },
  ],
  [{ id: -7, size: '1Gi' }],
  [{ id: 2 ** 53 - 1, size: '1Gi' }],
  [{ id: 2 ** 53, size: '1Gi' }],
  null,
];
const flagLists: Value[] = [
  absent,
  [],
  [{ on: true, note: 'a' }],
  [{ on: true, note: 'b' }],
  [{ on: false, note: 'a' }],
  [{ on: false }, { on: true }],
];
const portLists: Value[] = [
  absent,
  [],
  [{ port: 53, protocol: 'UDP', name: 'dns' }],
  [{ port: 53, protocol: 'TCP', name: 'dns' }],
  [
    { port: 53, protocol: 'UDP', name: 'dns' },
    { port: 53, protocol: 'TCP', name: 'dns-tcp' },
  ],
  [
    { port: 53, protocol: 'TCP', name: 'dns' },
    { port: 53, protocol: 'UDP', name: 'domain' },
  ],
  [{ port: 54, protocol: 'UDP' }],
];

const wrongIntegers: Value[] = [1.5, '2', true];
const wrongStrings: Value[] = [7, 0.5, false];
const wrongItems: Value[] = [[{ name: 'a', memory: 3, tier: 4 }]];
const wrongVolumes: Value[] = [[{ id: 0, size: 3 }]];
const wrongFlags: Value[] = [[{ on: true, note: 3 }]];
const wrongPorts: Value[] = [[{ port: 53, protocol: 'UDP', name: 3 }]];

interface Row {
  name: string;
  classifier: Classifier<string>;
  /** Where the classifier reads, below the spec: the values are put there. */
  path: string[];
  values: readonly Value[];
  /** Values of another type than the schema's. */
  wrongTyped: readonly Value[];
  /**
   * The values the CEL reads as crdgate does; by design it reads no others (a quantity Kubernetes would round, a
   * release past what the schema's maxLength lets it split), and then it must see no change at all.
   */
  celReads?: (value: Value) => boolean;
  /** What the CEL makes of a value, where it reads part of it otherwise than crdgate: the CEL counts crdgate's changes of that. */
  celSees?: (value: Value) => Value;
}

// compile-classifiers.ts: up to six digits and three decimals, a suffix up to T/Ti; releases of up to (8 + 1) / 2
// parts of at most 15 digits.
// An integer where a quantity string belongs (stored before the schema changed) is a quantity to crdgate, as to
// Kubernetes where a CRD declares int-or-string; the CEL compiles string quantities only, so it sees no change there.
const exactQuantity = (value: Value) =>
  typeof value === 'string'
    ? /^[0-9]{1,6}([.][0-9]{1,3})?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.test(value)
    : !Number.isInteger(value);
// In a list's items, it reads such an integer as a value it cannot read: the other changes of the list still count.
const integerQuantityUnreadIn =
  (field: string) =>
  (value: Value): Value =>
    Array.isArray(value)
      ? value.map((item: unknown) =>
          isPlainObject(item) && Number.isInteger(item[field]) ? { ...item, [field]: 'not a quantity' } : item,
        )
      : value;
const splittableRelease = (value: Value) =>
  typeof value !== 'string' ||
  !/^[0-9.]+$/.test(value) ||
  (value.split('.').length <= 4 && value.split('.').every((part) => part.length <= 15));

const rows: Row[] = [
  {
    name: 'integer, different, absent means 1',
    classifier: fieldClassifier({
      path: 'replicas',
      absentMeans: 1,
      read: readInteger,
      compare: whenDifferent('replicas.change'),
    }),
    path: ['replicas'],
    values: integers,
    wrongTyped: wrongIntegers,
  },
  {
    name: 'integer, by direction',
    classifier: fieldClassifier({
      path: 'size',
      read: readInteger,
      compare: byDirection({ compare: compareNumbers, increase: 'size.up', decrease: 'size.down' }),
    }),
    path: ['size'],
    values: integers,
    wrongTyped: wrongIntegers,
  },
  {
    name: 'integer, either direction one kind',
    classifier: fieldClassifier({
      path: 'size',
      read: readInteger,
      compare: byDirection({ compare: compareNumbers, increase: 'size.move', decrease: 'size.move' }),
    }),
    path: ['size'],
    values: integers,
    wrongTyped: wrongIntegers,
  },
  {
    name: 'string, different',
    classifier: fieldClassifier({ path: 'label', read: readString, compare: whenDifferent('label.change') }),
    path: ['label'],
    values: strings,
    wrongTyped: wrongStrings,
  },
  {
    name: 'nested string, absent means blue',
    classifier: fieldClassifier({
      path: 'look.color',
      absentMeans: 'blue',
      read: readString,
      compare: whenDifferent('color.change'),
    }),
    path: ['look', 'color'],
    values: strings,
    wrongTyped: wrongStrings,
  },
  {
    name: 'quantity, by direction',
    classifier: fieldClassifier({
      path: 'storage.size',
      read: readQuantity,
      compare: byDirection({ compare: compareQuantities, increase: 'storage.grow', decrease: 'storage.shrink' }),
    }),
    path: ['storage', 'size'],
    values: quantities,
    wrongTyped: wrongStrings,
    celReads: exactQuantity,
  },
  {
    name: 'quantity, different',
    classifier: fieldClassifier({ path: 'storage.size', read: readQuantity, compare: whenDifferent('storage.change') }),
    path: ['storage', 'size'],
    values: quantities,
    wrongTyped: wrongStrings,
    celReads: exactQuantity,
  },
  {
    name: 'release, by step',
    classifier: fieldClassifier({
      path: 'version',
      read: parseVersion,
      compare: byReleaseStep({ compare: compareVersions, upgrade: 'upgrade', major: 'major', downgrade: 'downgrade' }),
    }),
    path: ['version'],
    values: releases,
    wrongTyped: wrongStrings,
    celReads: splittableRelease,
  },
  {
    name: 'release, by direction',
    classifier: fieldClassifier({
      path: 'version',
      read: parseVersion,
      compare: byDirection({ compare: compareVersions, increase: 'version.up', decrease: 'version.down' }),
    }),
    path: ['version'],
    values: releases,
    wrongTyped: wrongStrings,
    celReads: splittableRelease,
  },
  {
    name: 'keyed list, absent means [], with item classifiers',
    classifier: keyedListClassifier({
      path: 'caches',
      key: 'name',
      absentMeans: [],
      added: 'cache.added',
      removed: 'cache.removed',
      itemClassifiers: [
        fieldClassifier({
          path: 'memory',
          read: readQuantity,
          compare: byDirection({ compare: compareQuantities, increase: 'cache.grow', decrease: 'cache.shrink' }),
        }),
        fieldClassifier({
          path: 'tier',
          absentMeans: 'warm',
          read: readString,
          compare: whenDifferent('cache.retier'),
        }),
      ],
    }),
    path: ['caches'],
    values: cacheLists,
    wrongTyped: wrongItems,
    celSees: integerQuantityUnreadIn('memory'),
  },
  {
    name: 'keyed list, absent unread',
    classifier: keyedListClassifier({
      path: 'shards',
      key: 'name',
      added: 'shard.added',
      removed: 'shard.removed',
      itemClassifiers: [
        fieldClassifier({ path: 'memory', read: readQuantity, compare: whenDifferent('shard.memory') }),
      ],
    }),
    path: ['shards'],
    values: cacheLists,
    wrongTyped: wrongItems,
    celSees: integerQuantityUnreadIn('memory'),
  },
  {
    name: 'keyed list, keyed by an integer',
    classifier: keyedListClassifier({
      path: 'volumes',
      key: 'id',
      added: 'volume.added',
      removed: 'volume.removed',
      itemClassifiers: [
        fieldClassifier({
          path: 'size',
          read: readQuantity,
          compare: byDirection({ compare: compareQuantities, increase: 'volume.grow', decrease: 'volume.shrink' }),
        }),
      ],
    }),
    path: ['volumes'],
    values: volumeLists,
    wrongTyped: wrongVolumes,
    celSees: integerQuantityUnreadIn('size'),
  },
  {
    name: 'keyed list, keyed by a boolean',
    classifier: keyedListClassifier({
      path: 'flags',
      key: 'on',
      absentMeans: [],
      added: 'flag.added',
      removed: 'flag.removed',
      itemClassifiers: [fieldClassifier({ path: 'note', read: readString, compare: whenDifferent('flag.renote') })],
    }),
    path: ['flags'],
    values: flagLists,
    wrongTyped: wrongFlags,
  },
  {
    name: 'keyed list, keyed by two fields',
    classifier: keyedListClassifier({
      path: 'ports',
      key: ['protocol', 'port'],
      added: 'port.added',
      removed: 'port.removed',
      itemClassifiers: [fieldClassifier({ path: 'name', read: readString, compare: whenDifferent('port.rename') })],
    }),
    path: ['ports'],
    values: portLists,
    wrongTyped: wrongPorts,
  },
];

function specWith(path: readonly string[], value: Value): Record<string, unknown> {
  if (value === absent) return path.length > 1 ? { [path[0]!]: {} } : {};
  return path.reduceRight<Record<string, unknown>>(
    (inner, segment) => ({ [segment]: inner }),
    value as never,
  ) as Record<string, unknown>;
}

function objectWith(specValue: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'toy.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: specValue };
}

type Compiled = { kinds: string[]; counts: string };

/** The classifier's sources as one CEL list of counts, one per kind, variables inlined when `withVariables`. */
function compileCounts(classifier: Classifier<string>, withVariables: boolean): Compiled {
  const variables = new Map<string, string>();
  const site: CompareSite = {
    old: optionalMember(ident('oldObject'), 'spec'),
    new: optionalMember(ident('object'), 'spec'),
    schema: specSchema,
    field: str('spec'),
    depth: 0,
    ...(withVariables
      ? {
          define: (hint: string, expression: Cel) => {
            const name = `v_${variables.size}_${hint.replace(/[^A-Za-z0-9]/g, '_')}`;
            variables.set(name, expression.text);
            return member(ident('variables'), name);
          },
        }
      : {}),
  };
  const compiled = compileClassifier(classifier.form, classifier.kinds, site);
  expect(compiled.uncompiled).toEqual([]);
  const kinds = [...new Set(compiled.sources.map((source) => source.kind))];
  const perKind = list(
    kinds.map((kind) =>
      plus(...compiled.sources.filter((source) => source.kind === kind).map((source) => source.count)),
    ),
  );
  // Later variables read earlier ones: inline from the last defined back to the first.
  const inline = (text: string) =>
    [...variables]
      .reverse()
      .reduce(
        (expression, [name, value]) => expression.replaceAll(new RegExp(`variables\\.${name}\\b`, 'g'), `(${value})`),
        text,
      );
  return { kinds, counts: inline(perKind.text) };
}

type Counts = Record<string, number> | string;
type SpecPair = readonly [Record<string, unknown>, Record<string, unknown>];

/**
 * The CEL's counts for every pair at once: one compile per classifier, the pairs bound as a list and each read
 * through comprehension variables named `oldObject` and `object`. When the batch fails, each pair alone says which.
 */
function celCounts(compiled: Compiled, pairs: readonly SpecPair[]): Counts[] {
  const all = evaluatePairs(compiled, pairs);
  if (typeof all !== 'string') return all;
  return pairs.map((pair) => {
    const one = evaluatePairs(compiled, [pair]);
    return typeof one === 'string' ? one : one[0]!;
  });
}

function evaluatePairs(compiled: Compiled, pairs: readonly SpecPair[]): Counts[] | string {
  const expr = `pairs.map(pair, [pair[0]].map(oldObject, [pair[1]].map(object, ${compiled.counts})[0])[0])`;
  const bound = pairs.map(([oldSpec, newSpec]) => [objectWith(oldSpec), objectWith(newSpec)]);
  const answer = evaluateCel({ expr, typeEnv: [dyn('pairs')], bindings: { pairs: celValue(bound) } });
  if (answer.compileError !== undefined)
    throw new Error(`does not compile: ${answer.compileError}\n${compiled.counts}`);
  if (answer.evalError !== undefined) return `error: ${answer.evalError}`;
  return listOf(answer.value).map((counts) =>
    Object.fromEntries(
      compiled.kinds
        .map((kind, index) => [kind, Number(listOf(counts)[index]!.int64Value)] as const)
        .filter(([, count]) => count !== 0),
    ),
  );
}

const listOf = (value: unknown) =>
  (value as { listValue: { values?: { int64Value: string }[] } }).listValue.values ?? [];

/**
 * What the CEL must count of the classifier's changes: all but the undecidable ones. A value the reader cannotReads
 * (a string that is no quantity or release, an integer past 2^53, keys that do not tell items apart) is refused by
 * the webhook alone: the CEL reads it as no change, in the direction the policy may err.
 */
function classifierCounts(classifier: Classifier<string>, oldSpec: unknown, newSpec: unknown): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const change of classifier.classify(oldSpec, newSpec, { field: 'spec' })) {
    if (change.undecidable === undefined) counts[change.kind] = (counts[change.kind] ?? 0) + 1;
  }
  return counts;
}

const show = (value: Value) => (value === absent ? '(absent)' : JSON.stringify(value));

/** Where the CEL's counts differ from what it must count for the classifier's: `old -> new: ...`. */
function disagreements(row: Row, compiled: Compiled, pairs: readonly (readonly [Value, Value])[]): string[] {
  const specs = pairs.map(([before, after]) => [specWith(row.path, before), specWith(row.path, after)] as const);
  const actual = celCounts(
    compiled,
    specs.map(([oldSpec, newSpec]) => [withoutNulls(oldSpec), withoutNulls(newSpec)] as const),
  );
  return pairs.flatMap(([before, after], index) => {
    const read = row.celReads ?? (() => true);
    const sees = row.celSees ?? ((value: Value) => value);
    const expected =
      read(before) && read(after)
        ? classifierCounts(row.classifier, specWith(row.path, sees(before)), specWith(row.path, sees(after)))
        : {};
    if (isDeepStrictEqual(actual[index], expected)) return [];
    return [
      `${show(before)} -> ${show(after)}: classifier ${JSON.stringify(expected)}, CEL ${JSON.stringify(actual[index])}`,
    ];
  });
}

const allPairs = (olds: readonly Value[], news: readonly Value[]) =>
  olds.flatMap((before) => news.map((after) => [before, after] as const));

describe('each classifier and its compiled CEL count the same changes', () => {
  for (const row of rows) {
    for (const withVariables of [true, false]) {
      it(`${row.name}${withVariables ? ', through policy variables' : ', inlined'}: ${row.values.length ** 2} pairs`, () => {
        expect(
          disagreements(row, compileCounts(row.classifier, withVariables), allPairs(row.values, row.values)),
        ).toEqual([]);
      });
    }
  }
});

// A value of another type than the schema's in a stored object (the schema changed since it was written) reads as
// unreadable to crdgate: no change. The CEL checks each value's type before it reads it (compile-classifiers.ts'
// hasType), so it too sees no change, rather than comparing it (a fraction against an int would count one) or
// failing (a number has no matches()), which would refuse what the webhook lets through. Two ways such a pair
// reaches the policy: an update that corrects the value (the new object is checked against the schema, the old one
// is not), and, through CRD validation ratcheting, an update that leaves the wrong value as it was.
describe("a stored value of another type than the schema's", () => {
  for (const row of rows) {
    for (const withVariables of [true, false]) {
      const via = withVariables ? 'through policy variables' : 'inlined';
      it(`${row.name}, corrected by the update, ${via}: ${row.wrongTyped.length * row.values.length} pairs`, () => {
        expect(
          disagreements(row, compileCounts(row.classifier, withVariables), allPairs(row.wrongTyped, row.values)),
        ).toEqual([]);
      });
      it(`${row.name}, kept by the update (ratcheting), ${via}: ${row.wrongTyped.length} pairs`, () => {
        const kept = row.wrongTyped.map((value) => [value, structuredClone(value)] as const);
        expect(disagreements(row, compileCounts(row.classifier, withVariables), kept)).toEqual([]);
      });
    }
  }
});
