import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../api-server-engine/engine.ts';
import { defineContract, type Contract, type JSONSchemaProps } from '../index.ts';
import { whenDifferent } from '../contract/fsa/comparisons.ts';
import { evaluateTransition } from '../contract/fsa/evaluate/evaluate-transition.ts';
import { fieldClassifier } from '../contract/fsa/field-classifier.ts';
import { keyedListClassifier } from '../contract/fsa/keyed-list-classifier.ts';
import type { Classifier, Fsa } from '../contract/fsa/machine.ts';
import { specCoverage } from '../contract/fsa/spec-coverage.ts';
import { findUnclassifiedChanges } from '../contract/fsa/unclassified-changes.ts';
import { readInteger, readQuantity } from '../contract/fsa/value-readers.ts';
import { celValue, dyn, withoutNulls } from './cel-json.fixture.ts';
import { compileContractPolicy } from './compile-policy.ts';
import { compileUnclassified } from './compile-unclassified.ts';
import { policyAllows } from './policy-cel.fixture.ts';

// The CEL the policy floor compiles for changes no change kind names, against the webhook's finding of them, in
// kube-apiserver's own CEL environment (the engine's evaluateCel; `object` and `oldObject` dyn, as
// classifier-cel-agreement.test.ts explains). Over a spec of every shape the compiler meets: fields it compares whole,
// objects it walks into, fields left to the webhook (unbounded, nullable, free-form, a keyed list covered in part),
// and a keyed list covered whole. The CEL must see a change exactly when the webhook finds one outside the fields it
// leaves to the webhook, and name a field at or above one the webhook names; then, the whole compiled policy
// must decide as evaluateTransition does, in every state, with and without the override.

const short: JSONSchemaProps = { type: 'string', maxLength: 16 };
const keyedList = (item: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
  type: 'array',
  maxItems: 4,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: { type: 'object', required: ['name'], properties: { name: short, ...item } },
});

const specSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    paused: { type: 'boolean' },
    mode: { type: 'string', enum: ['fast', 'safe'] },
    ratio: { type: 'number' },
    notes: { type: 'string' },
    storage: {
      type: 'object',
      properties: {
        size: short,
        class: short,
        tags: { type: 'object', maxProperties: 4, additionalProperties: short },
      },
    },
    tuning: {
      type: 'object',
      properties: {
        work: short,
        shared: { type: 'integer' },
        deep: { type: 'object', properties: { level: { type: 'integer' } } },
      },
    },
    backup: { type: 'object', properties: { schedule: short, comment: { type: 'string' } } },
    args: { type: 'array', maxItems: 3, items: short },
    caches: keyedList({ memory: short, tier: short }),
    shards: keyedList({ memory: short }),
    maybe: { type: 'integer', nullable: true },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

const classifiers: Classifier<string>[] = [
  fieldClassifier({ path: 'replicas', read: readInteger, compare: whenDifferent('scale') }),
  fieldClassifier({ path: 'storage.size', read: readQuantity, compare: whenDifferent('resize') }),
  keyedListClassifier({
    path: 'caches',
    key: 'name',
    added: 'cache.add',
    removed: 'cache.remove',
    itemClassifiers: [fieldClassifier({ path: 'memory', read: readQuantity, compare: whenDifferent('cache.resize') })],
  }),
  keyedListClassifier({
    path: 'shards',
    key: 'name',
    added: 'shard.add',
    removed: 'shard.remove',
    itemClassifiers: [fieldClassifier({ path: 'memory', read: readQuantity, compare: whenDifferent('shard.resize') })],
  }),
];

const absent = Symbol('absent');
const values: Record<string, readonly unknown[]> = {
  replicas: [absent, 1, 2],
  paused: [absent, true, false, null],
  mode: [absent, 'fast', 'safe'],
  ratio: [absent, 1, 1.5, 0.5],
  notes: [absent, 'a', 'b'],
  storage: [
    absent,
    {},
    { size: '1Gi' },
    { size: '2Gi' },
    { size: '1Gi', class: 'ssd' },
    { class: 'hdd' },
    { tags: { a: 'x' } },
    { tags: { a: 'y', b: 'x' } },
    { tags: {} },
    { class: null },
  ],
  tuning: [
    absent,
    {},
    { work: '4MB' },
    { work: '8MB' },
    { work: '4MB', shared: 2 },
    { deep: {} },
    { deep: { level: 1 } },
    { deep: { level: 2 } },
    { work: null },
  ],
  backup: [
    absent,
    {},
    { schedule: '@daily' },
    { schedule: '@hourly' },
    { comment: 'x' },
    { schedule: '@daily', comment: 'y' },
  ],
  args: [absent, [], ['a'], ['a', 'b'], ['b', 'a']],
  caches: [
    absent,
    [],
    [{ name: 'a', memory: '1Gi', tier: 'hot' }],
    [{ name: 'a', memory: '2Gi', tier: 'hot' }],
    [{ name: 'a', memory: '1Gi', tier: 'cold' }],
    [
      { name: 'b', tier: 'cold' },
      { name: 'a', memory: '1Gi', tier: 'hot' },
    ],
  ],
  shards: [
    absent,
    [],
    [{ name: 'a', memory: '1Gi' }],
    [{ name: 'a', memory: '2Gi' }],
    [{ name: 'b' }, { name: 'a', memory: '1Gi' }],
  ],
  maybe: [absent, 1, 2, null],
  extra: [absent, {}, { anything: 1 }, { anything: 2 }],
};

const compiled = compileUnclassified(specSchema, specCoverage(classifiers));
const webhookOnly = compiled.webhookOnly.map(({ field }) => field);

type Spec = Record<string, unknown>;
const specWith = (field: string, value: unknown): Spec => (value === absent ? {} : { [field]: value });
const objectWith = (spec: Spec) => ({
  apiVersion: 'toy.example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w' },
  spec,
});
const under = (field: string, ancestor: string) =>
  field === ancestor || field.startsWith(`${ancestor}.`) || field.startsWith(`${ancestor}[`);

/** The fields the webhook finds that the policy is to see too: all but those it leaves to the webhook. */
function webhookFields(oldSpec: Spec, newSpec: Spec): string[] {
  const classified = classifiers.map((classifier) => ({
    classifier,
    changes: classifier.classify(oldSpec, newSpec, { field: 'spec' }),
  }));
  const { changes } = findUnclassifiedChanges(classified, oldSpec, newSpec, Number.MAX_SAFE_INTEGER);
  return changes.map(({ field }) => field).filter((field) => !webhookOnly.some((left) => under(field, left)));
}

/** The CEL's first changed field for every pair, the pairs bound as one list as classifier-cel-agreement.test.ts binds them. */
function celFields(pairs: readonly (readonly [Spec, Spec])[]): string[] {
  const expr = `pairs.map(pair, [pair[0]].map(oldObject, [pair[1]].map(object, ${compiled.changedField!.text})[0])[0])`;
  const bound = pairs.map(([oldSpec, newSpec]) => [
    objectWith(withoutNulls(oldSpec)),
    objectWith(withoutNulls(newSpec)),
  ]);
  const answer = evaluateCel({ expr, typeEnv: [dyn('pairs')], bindings: { pairs: celValue(bound) } });
  if (answer.compileError !== undefined || answer.evalError !== undefined)
    throw new Error(answer.compileError ?? answer.evalError);
  return ((answer.value as { listValue: { values?: { stringValue?: string }[] } }).listValue.values ?? []).map(
    (value) => value.stringValue ?? '',
  );
}

function disagreements(pairs: readonly (readonly [Spec, Spec])[]): string[] {
  const fields = celFields(pairs);
  return pairs.flatMap(([oldSpec, newSpec], index) => {
    const expected = webhookFields(oldSpec, newSpec);
    const named = fields[index]!;
    const agrees = named === '' ? expected.length === 0 : expected.some((field) => under(field, named));
    return agrees
      ? []
      : [
          `${JSON.stringify(oldSpec)} -> ${JSON.stringify(newSpec)}: webhook ${JSON.stringify(expected)}, CEL "${named}"`,
        ];
  });
}

describe("the CEL of changes no change kind names, against the webhook's finding", () => {
  it('leaves to the webhook, by name, exactly the fields it cannot compare as the webhook does', () => {
    expect(compiled.webhookOnly).toEqual([
      { field: 'spec.notes', reason: expect.stringContaining('needs a maxLength') },
      { field: 'spec.backup.comment', reason: expect.stringContaining('needs a maxLength') },
      { field: 'spec.caches', reason: expect.stringContaining('covered in part') },
      { field: 'spec.maybe', reason: expect.stringContaining('nullable') },
      { field: 'spec.extra', reason: expect.stringContaining('x-kubernetes-preserve-unknown-fields') },
    ]);
  });

  for (const [field, fieldValues] of Object.entries(values)) {
    it(`${field}: ${fieldValues.length ** 2} pairs, each field otherwise absent`, () => {
      const pairs = fieldValues.flatMap((before) =>
        fieldValues.map((after) => [specWith(field, before), specWith(field, after)] as const),
      );
      expect(disagreements(pairs)).toEqual([]);
    });
  }

  it('1,000 pairs of whole specs, several fields changing at once', () => {
    const spec = fc
      .record(
        Object.fromEntries(Object.entries(values).map(([field, options]) => [field, fc.constantFrom(...options)])),
      )
      .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== absent)));
    // The new spec keeps a field of the old one a third of the time, else takes one of its values (the same, at times).
    const edits = fc.record(
      Object.fromEntries(
        Object.entries(values).map(([field, options]) => [field, fc.option(fc.constantFrom(...options), { freq: 3 })]),
      ),
    );
    const pairs = fc.sample(fc.tuple(spec, edits), { numRuns: 1_000, seed: 40 }).map(([oldSpec, edit]) => {
      const newSpec: Spec = { ...oldSpec };
      for (const [field, value] of Object.entries(edit)) {
        if (value === null) continue;
        if (value === absent) delete newSpec[field];
        else newSpec[field] = value;
      }
      return [oldSpec, newSpec] as const;
    });
    const changed = pairs.filter(([oldSpec, newSpec]) => webhookFields(oldSpec, newSpec).length > 0).length;
    expect(changed).toBeGreaterThan(300);
    expect(changed).toBeLessThan(1_000);
    expect(disagreements(pairs)).toEqual([]);
  });
});

// ---- The whole policy, decided as evaluateTransition decides ----

const states = ['Draft', 'Active', 'Busy', 'Broken', 'Gone'] as const;
type State = (typeof states)[number];
const machine: Fsa<State, string> = {
  name: 'Widget',
  subject: 'widget',
  states,
  initialState: 'Draft',
  deletingState: 'Gone',
  terminalStates: ['Gone'],
  humanInterventionStates: ['Broken'],
  phasePath: 'status.phase',
  changeKinds: {
    scale: { description: 'scaling from {from} to {to}' },
    resize: { description: 'resizing from {from} to {to}' },
  },
  rules: {
    Draft: { anyChange: true, operatorMoves: ['Active', 'Broken'] },
    Active: {
      allow: [{ changes: ['scale'] }, { changes: ['resize'], next: 'Busy' }],
      operatorMoves: ['Broken'],
      unclassifiedChanges: 'allowed',
    },
    Busy: { allow: [{ changes: ['scale'] }], operatorMoves: ['Active', 'Broken'], unclassifiedChanges: 'refused' },
    Broken: {},
    Gone: {},
  },
  unclassifiedChanges: 'refused-unless-overridden',
  overrideAnnotation: 'toy.example.com/override-transitions',
  classifiers: classifiers.slice(0, 2),
};
const contract: Contract = defineContract({
  identity: { group: 'toy.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
  hub: 'v1',
  versions: [
    {
      name: 'v1',
      served: true,
      storage: true,
      schema: {
        type: 'object',
        properties: {
          spec: {
            ...specSchema,
            properties: {
              ...specSchema.properties,
              caches: { type: 'array', maxItems: 3, items: short },
              shards: { type: 'array', maxItems: 3, items: short },
            },
          },
          status: { type: 'object', properties: { phase: { type: 'string', maxLength: 16 } } },
        },
      },
      subresources: { status: {} },
    },
  ],
  conversions: {},
  transitions: machine,
});

describe('the compiled policy decides changes no change kind names as the webhook does', () => {
  it('in every state and an unrecognised phase, with and without the override: 1,000 updates', () => {
    const spec = fc.record(
      {
        replicas: fc.constantFrom(1, 2),
        paused: fc.boolean(),
        storage: fc.constantFrom({ size: '1Gi' }, { size: '2Gi' }, { size: '1Gi', class: 'ssd' }),
        notes: fc.constantFrom('a', 'b'),
      },
      { requiredKeys: [] },
    );
    const phase = fc.constantFrom<string | undefined>(...states, 'Rebooting', undefined);
    const annotations = fc.constantFrom<Record<string, string>>(
      {},
      { 'toy.example.com/override-transitions': 'INC-7' },
      { 'toy.example.com/override-transitions': ' ' },
    );
    // The stored object's annotations too: an override it carried already is stale, and lifts nothing.
    const cases = fc
      .sample(fc.tuple(spec, spec, phase, annotations, annotations), { numRuns: 1_000, seed: 6 })
      .map(([oldSpec, newSpec, statePhase, notes, oldNotes]) => ({
        old: {
          ...objectWith(oldSpec),
          metadata: { name: 'w', annotations: oldNotes },
          ...(statePhase === undefined ? {} : { status: { phase: statePhase } }),
        },
        new: { ...objectWith(newSpec), metadata: { name: 'w', annotations: notes } },
      }));
    const policy = policyAllows(compileContractPolicy(contract), cases);
    const decisions = cases.map((c) => evaluateTransition(machine, c.old, c.new));
    // Changes only in notes (no maxLength) are the webhook's alone: there the policy may allow what the webhook refuses.
    const mismatches = cases.flatMap((c, index) => {
      const decision = decisions[index]!;
      const onlyNotes =
        decision.unclassified.changes.every(({ field }) => field === 'spec.notes') &&
        decision.unclassified.changes.length > 0;
      const agree =
        policy[index] === decision.allowed ||
        (onlyNotes &&
          policy[index] &&
          decision.changes.every(({ ruling }) => ruling.outcome === 'allowed' || ruling.outcome === 'overridden'));
      return agree ? [] : [`${JSON.stringify(c)}: webhook ${decision.allowed}, policy ${policy[index]}`];
    });
    expect(mismatches.slice(0, 5)).toEqual([]);
    const outcomes = new Set(
      decisions
        .filter((decision) => decision.unclassified.changes.some(({ field }) => field !== 'spec.notes'))
        .map((decision) => decision.unclassified.ruling.outcome),
    );
    expect([...outcomes].sort()).toEqual(['not-allowed', 'overridden', 'refused']);
    const stale = decisions.filter(
      (decision) =>
        !decision.override.given &&
        decision.override.why === 'stale' &&
        decision.unclassified.ruling.outcome === 'not-allowed',
    );
    expect(stale.length).toBeGreaterThan(20);
    expect(policy.filter((passes) => !passes).length).toBeGreaterThan(100);
  });
});
