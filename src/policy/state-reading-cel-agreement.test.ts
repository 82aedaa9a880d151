import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineContract, type Contract, type JSONSchemaProps } from '../index.ts';
import { classifyChanges, evaluateTransition } from '../contract/fsa/evaluate/evaluate-transition.ts';
import type { StateReader, Fsa } from '../contract/fsa/machine.ts';
import { toyConditionStates, toyMachine } from '../contract/fsa/toy-machine.fixture.ts';
import { unclassifiedChangesIn, unclassifiedChangesInUnrecognisedPhase } from '../contract/fsa/unclassified-setting.ts';
import { compileContractPolicy } from './compile-policy.ts';
import { conditionsRead } from './compile-state-reading.ts';
import { policyAllows } from './policy-cel.fixture.ts';

// The compiled policy against evaluateTransition where the state is not a phase, through kube-apiserver's own CEL
// (policy-cel.fixture.ts):
// - conditionStates: the CEL reads the conditions and the observed generation as the webhook does, values of
//   unexpected types included, so the two decide every update alike on an object with up to conditionsRead
//   conditions; on one with more, the policy reads no state and refuses only what every state refuses.
// - a state reader of one's own, which the policy cannot run: it refuses exactly the updates that carry a change
//   refused in every state (an unsupported kind, two exclusive ones, a change no change kind names where every state
//   refuses those), and, once a deletion has started, decides as the webhook does in the deleting state.

type Spec = Record<string, unknown>;
const statusSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    observedGeneration: { type: 'integer' },
    conditions: {
      type: 'array',
      items: {
        type: 'object',
        properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } },
      },
    },
  },
};
const specSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    size: { type: 'integer' },
    label: { type: 'string', maxLength: 63 },
    color: { type: 'string', maxLength: 63 },
    paused: { type: 'boolean' },
  },
};

function contractOf(machine: Fsa<string, string>): Contract {
  return defineContract({
    identity: { group: 'toy.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
    hub: 'v1',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { type: 'object', properties: { spec: specSchema, status: statusSchema } },
        subresources: { status: {} },
      },
    ],
    conversions: {},
    transitions: machine,
  });
}

const { phasePath: _phasePath, ...toyWithoutPhase } = toyMachine;
// The toy machine's states and kinds (an unsupported one, two exclusive ones), and changes no change kind names
// refused unless overridden, outright while Busy.
const base = {
  ...toyWithoutPhase,
  unclassifiedChanges: 'refused-unless-overridden',
  rules: { ...toyMachine.rules, Busy: { ...toyMachine.rules.Busy, unclassifiedChanges: 'refused' } },
} as Fsa<string, string>;

const conditionsMachine: Fsa<string, string> = { ...base, conditionStates: toyConditionStates };

const ready = (status: unknown, reason?: unknown) => ({
  type: 'Ready',
  status,
  ...(reason === undefined ? {} : { reason }),
});
const filler = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ type: `Probe${index}`, status: 'True' }));
const conditionLists: unknown[] = [
  undefined,
  [],
  [ready('True')],
  [ready('False', 'Stuck')],
  [ready('False', 'Retrying')],
  [ready('Unknown', 'Probing')],
  [{ type: 'Synced', status: 'True' }, ready('True')],
  [ready('False'), ready('True')],
  [{ type: 'Synced', status: 'False' }],
  // Values of unexpected types: not a list, items that are no objects, fields of other types.
  'Ready',
  [7, ['Ready'], { type: ['Ready'] }],
  [{ type: 'Ready', status: true }],
  [{ type: 'Ready' }],
  // Around the number of conditions the policy reads: the Ready condition last.
  [...filler(conditionsRead - 1), ready('True')],
  [...filler(conditionsRead), ready('True')],
  [...filler(conditionsRead + 8), ready('False', 'Stuck')],
];
const observedGenerations: unknown[] = [undefined, 0, 1, 2, 3, 1.5, '2', 2 ** 53, -1];
const override = 'toy.example.com/override-transitions';
const specs = fc.record(
  {
    size: fc.constantFrom(1, 2, 3),
    label: fc.constantFrom('a', 'b'),
    color: fc.constantFrom('red', 'blue'),
    paused: fc.boolean(),
  },
  { requiredKeys: [] },
);
const annotations = fc.constantFrom<Record<string, string>>({}, { [override]: 'INC-7' }, { [override]: ' ' });

interface Update {
  old: Record<string, unknown>;
  new: Record<string, unknown>;
}

/** Updates from stored objects of every status the pools make, being deleted at times, with and without an override. */
function updates(statuses: fc.Arbitrary<unknown>, runs: number, seed: number): Update[] {
  const start = fc.record({
    spec: specs,
    status: statuses,
    generation: fc.constantFrom(1, 2, 3),
    deleting: fc.integer({ min: 0, max: 7 }).map((roll) => roll === 0),
    notes: annotations,
  });
  return fc.sample(fc.tuple(start, specs, annotations), { numRuns: runs, seed }).map(([old, spec, notes]) => ({
    old: {
      apiVersion: 'toy.example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'w',
        generation: old.generation,
        annotations: old.notes,
        ...(old.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      },
      spec: old.spec,
      ...(old.status === undefined ? {} : { status: old.status }),
    },
    new: { apiVersion: 'toy.example.com/v1', kind: 'Widget', metadata: { name: 'w', annotations: notes }, spec },
  }));
}

const conditionStatuses = fc
  .record({
    conditions: fc.constantFrom(...conditionLists),
    observedGeneration: fc.constantFrom(...observedGenerations),
  })
  .map((status) => Object.fromEntries(Object.entries(status).filter(([, value]) => value !== undefined)));

/** The policy's answers, 100 updates to an evaluation (each within the engine's cost limit per call). */
function policyAnswers(contract: Contract, cases: readonly Update[]): boolean[] {
  const policy = compileContractPolicy(contract);
  const answers: boolean[] = [];
  for (let at = 0; at < cases.length; at += 100) answers.push(...policyAllows(policy, cases.slice(at, at + 100)));
  return answers;
}

/** What the webhook decides in each reading the policy cannot tell apart: every state, and an unrecognised one. */
function everyReading(machine: Fsa<string, string>, update: Update): boolean[] {
  const readers: StateReader<string>[] = [
    ...machine.states.map((state) => () => state),
    () => ({ unrecognised: 'elsewhere' }),
  ];
  const { conditionStates: _conditions, ...others } = machine;
  return readers.map((readState) => evaluateTransition({ ...others, readState }, update.old, update.new).allowed);
}

/** The setting for changes no change kind names in every state and an unrecognised one, if they share one. */
function settingEverywhere(machine: Fsa<string, string>): string | undefined {
  const settings = new Set([
    ...machine.states.map((state) => unclassifiedChangesIn(machine, state)),
    unclassifiedChangesInUnrecognisedPhase(machine),
  ]);
  return settings.size === 1 ? [...settings][0] : undefined;
}

/** An update carrying a change every state refuses: the policy refuses it, its state read or not. */
function refusedEverywhere(machine: Fsa<string, string>, update: Update): boolean {
  if (machine.states.some((state) => machine.rules[state]?.anyChange)) return false;
  const [oldSpec, newSpec] = [(update.old as { spec: Spec }).spec, (update.new as { spec: Spec }).spec];
  const changes = classifyChanges(machine, oldSpec, newSpec);
  const unsupported = changes.some((change) => machine.changeKinds[change.kind]?.unsupported !== undefined);
  const exclusive = changes.filter(
    (change) =>
      machine.changeKinds[change.kind]?.exclusive && machine.changeKinds[change.kind]?.unsupported === undefined,
  );
  // paused is the one spec field no change kind names.
  const setting = settingEverywhere(machine);
  const overriding = evaluateTransition(machine, update.old, update.new).override.given;
  const unclassified =
    oldSpec['paused'] !== newSpec['paused'] &&
    (setting === 'refused' || (setting === 'refused-unless-overridden' && !overriding));
  return unsupported || exclusive.length >= 2 || unclassified;
}

/**
 * The webhook's decision on a deletion, where the policy knows the state: as it is, but for a change no change kind
 * names where states decide those differently, which the policy does not compare at all (it leaves them to the webhook).
 */
function decidedWhileDeleting(machine: Fsa<string, string>, update: Update): boolean {
  if (settingEverywhere(machine) !== undefined) return evaluateTransition(machine, update.old, update.new).allowed;
  const paused = (update.old as { spec: Spec }).spec['paused'];
  const { paused: _paused, ...spec } = (update.new as { spec: Spec }).spec;
  return evaluateTransition(machine, update.old, {
    ...update.new,
    spec: paused === undefined ? spec : { ...spec, paused },
  }).allowed;
}

const conditionCount = (update: Update) => {
  const conditions = (update.old['status'] as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? conditions.length : 0;
};
const isDeleting = (update: Update) =>
  (update.old['metadata'] as { deletionTimestamp?: string }).deletionTimestamp !== undefined;

describe('conditionStates: the compiled policy decides as the webhook does', () => {
  const contract = contractOf(conditionsMachine);
  const cases = updates(conditionStatuses, 2_000, 41);
  const policy = policyAnswers(contract, cases);
  const decisions = cases.map((update) => evaluateTransition(conditionsMachine, update.old, update.new));

  it(`on every update from an object with up to ${conditionsRead} conditions`, () => {
    const read = cases.flatMap((update, index) => (conditionCount(update) <= conditionsRead ? [index] : []));
    const mismatches = read.filter((index) => policy[index] !== decisions[index]!.allowed);
    expect(
      mismatches
        .slice(0, 5)
        .map(
          (index) => `${JSON.stringify(cases[index])}: webhook ${decisions[index]!.allowed}, policy ${policy[index]}`,
        ),
    ).toEqual([]);
    // Every reading met, each answer in numbers.
    const states = new Set(
      read.map((index) => (decisions[index]!.state.recognised ? decisions[index]!.state.state : 'unrecognised')),
    );
    expect([...states].sort()).toEqual(['Active', 'Broken', 'Busy', 'Draft', 'Gone', 'unrecognised']);
    expect(read.filter((index) => !policy[index]).length).toBeGreaterThan(300);
    expect(read.filter((index) => policy[index]).length).toBeGreaterThan(300);
  });

  it(`on an object with more: never refusing what the webhook allows, refusing what every state refuses`, () => {
    const unread = cases.flatMap((update, index) =>
      conditionCount(update) > conditionsRead && !isDeleting(update) ? [index] : [],
    );
    expect(unread.length).toBeGreaterThan(50);
    const stricter = unread.filter((index) => !policy[index] && decisions[index]!.allowed);
    expect(stricter.map((index) => JSON.stringify(cases[index]!.new))).toEqual([]);
    // The toy machine allows any change in Draft, so nothing is refused in every state: the policy lets all through.
    expect(unread.every((index) => policy[index])).toBe(true);
    expect(unread.filter((index) => !decisions[index]!.allowed).length).toBeGreaterThan(10);
  });
});

describe('conditionStates without a state that allows any change: past the conditions it reads, what every state refuses', () => {
  const { Draft: _draft, ...rules } = conditionsMachine.rules;
  const machine = {
    ...conditionsMachine,
    states: ['Active', 'Busy', 'Broken', 'Gone'],
    initialState: 'Active',
    rules,
    conditionStates: conditionsMachine.conditionStates!.slice(1),
  } as Fsa<string, string>;
  const contract = contractOf(machine);
  const many = fc
    .constantFrom(conditionLists.at(-1), conditionLists.at(-2))
    .map((conditions) => ({ conditions, observedGeneration: 1 }));
  const cases = updates(many, 600, 42).filter((update) => !isDeleting(update));
  const policy = policyAnswers(contract, cases);

  it('refuses exactly the updates every reading refuses for a reason of its own', () => {
    const expected = cases.map((update) => !refusedEverywhere(machine, update));
    expect(
      cases.flatMap((update, index) => (policy[index] === expected[index] ? [] : [JSON.stringify(update.new)])),
    ).toEqual([]);
    for (const [index, update] of cases.entries())
      if (!policy[index]) expect(everyReading(machine, update)).not.toContain(true);
    expect(policy.filter((allowed) => !allowed).length).toBeGreaterThan(100);
  });
});

describe('a state reader of its own: the policy refuses what every state refuses, and decides a deletion', () => {
  const reader = (object: { status?: unknown }) => (object.status === undefined ? undefined : 'Active');
  const { Draft: _draft, ...rules } = base.rules;
  const withoutAnyChange = {
    ...base,
    states: ['Active', 'Busy', 'Broken', 'Gone'],
    initialState: 'Active',
    rules,
    readState: reader,
  } as Fsa<string, string>;
  const strict = {
    ...withoutAnyChange,
    unclassifiedChanges: 'refused',
    rules: { ...rules, Busy: toyMachine.rules.Busy },
  } as Fsa<string, string>;
  const withAnyChange = { ...base, readState: reader } as Fsa<string, string>;
  const statuses = fc.constantFrom(undefined, { conditions: [] });

  for (const [name, machine] of [
    ['without a state that allows any change', withoutAnyChange],
    ['refusing changes no change kind names in every state', strict],
    ['with a state that allows any change', withAnyChange],
  ] as const) {
    it(`${name}: 1,000 updates`, () => {
      const contract = contractOf(machine);
      const cases = updates(statuses, 1_000, 43);
      const policy = policyAnswers(contract, cases);
      const expected = cases.map((update) =>
        isDeleting(update) ? decidedWhileDeleting(machine, update) : !refusedEverywhere(machine, update),
      );
      expect(
        cases.flatMap((update, index) => (policy[index] === expected[index] ? [] : [JSON.stringify(update)])),
      ).toEqual([]);
      // The oracle itself: what it refuses outside a deletion, every reading refuses.
      for (const [index, update] of cases.entries())
        if (!policy[index] && !isDeleting(update)) expect(everyReading(machine, update)).not.toContain(true);
      const refusedOutsideDeletion = cases.filter((update, index) => !policy[index] && !isDeleting(update)).length;
      if (machine === withAnyChange) expect(refusedOutsideDeletion).toBe(0);
      else expect(refusedOutsideDeletion).toBeGreaterThan(100);
      expect(cases.filter((update, index) => !policy[index] && isDeleting(update)).length).toBeGreaterThan(20);
    });
  }
});
