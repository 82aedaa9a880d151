import { describe, expect, it } from 'vitest';
import { checkMachine } from './check-machine.ts';
import { whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { keyedListClassifier } from './keyed-list-classifier.ts';
import { cannotRead, readRelease, readString } from './value-readers.ts';
import { parseVersion } from '../values/release-version.ts';
import type { Fsa } from './machine.ts';
import { toyMachine, toyOverrideOnlyMachine, type ToyChange, type ToyState } from './toy-machine.fixture.ts';

type Machine = Fsa<ToyState, ToyChange>;

/** The toy machine with some parts replaced; casts stand for machines that come from untyped code. */
function broken(parts: Partial<Machine>): Machine {
  return { ...toyMachine, ...parts };
}

function rules(replacements: Partial<Record<string, Machine['rules'][ToyState]>>): Machine['rules'] {
  return { ...toyMachine.rules, ...replacements } as Machine['rules'];
}

function withoutRuleFor(state: ToyState): Machine['rules'] {
  return Object.fromEntries(Object.entries(toyMachine.rules).filter(([name]) => name !== state)) as Machine['rules'];
}

describe('checkMachine', () => {
  it('finds nothing wrong with a sound machine', () => {
    expect(checkMachine(toyMachine)).toEqual([]);
  });

  it.each<[string, Partial<Machine>, string]>([
    ['a state without a rule', { rules: withoutRuleFor('Busy') }, 'state Busy has no rule'],
    [
      'a rule for an unknown state',
      { rules: rules({ Sleeping: {} }) },
      'rule for Sleeping, which is not one of the states',
    ],
    [
      'an unknown initial state',
      { initialState: 'Nowhere' as ToyState },
      'initial state Nowhere is not one of the states',
    ],
    [
      'an unknown deleting state',
      { deletingState: 'Nowhere' as ToyState },
      'deleting state Nowhere is not one of the states',
    ],
    ['a repeated state', { states: [...toyMachine.states, 'Busy'] }, 'state names repeat'],
    [
      'a state name that is no phase',
      { states: ['Draft', 'Active', 'Busy', 'Broken', 'Gone', 'on fire' as ToyState] },
      'must be UpperCamelCase',
    ],
    [
      'a change kind name with capitals',
      { changeKinds: { ...toyMachine.changeKinds, Paint: { description: 'x', unsupported: 'no' } } as never },
      '"Paint" must be dotted lowercase',
    ],
    [
      'an unknown next state',
      {
        rules: rules({
          Busy: { allow: [{ changes: ['label'], next: 'Nowhere' as ToyState }], operatorMoves: ['Active'] },
        }),
      },
      'Busy leads to Nowhere',
    ],
    [
      'an unknown operator move',
      { rules: rules({ Busy: { allow: [{ changes: ['label'] }], operatorMoves: ['Active', 'Nowhere' as ToyState] } }) },
      'moves Busy to Nowhere',
    ],
    [
      'an allowed change that is not a kind',
      { rules: rules({ Busy: { allow: [{ changes: ['label', 'paint' as ToyChange] }], operatorMoves: ['Active'] } }) },
      'Busy allows paint, which is not a change kind',
    ],
    [
      'an allowed unsupported change',
      { rules: rules({ Busy: { allow: [{ changes: ['label', 'size.down'] }], operatorMoves: ['Active'] } }) },
      'Busy allows size.down, which is unsupported',
    ],
    [
      'a change listed twice',
      {
        rules: rules({
          Busy: { allow: [{ changes: ['label'] }, { changes: ['label'], next: 'Active' }], operatorMoves: ['Active'] },
        }),
      },
      'Busy lists label more than once',
    ],
    [
      'an unreachable state',
      {
        rules: rules({
          Active: { allow: [{ changes: ['label'] }, { changes: ['size.up', 'color'] }], operatorMoves: ['Broken'] },
        }),
      },
      'state Busy cannot be reached from Draft',
    ],
    [
      'a state without a way out',
      { rules: rules({ Busy: { allow: [{ changes: ['label'] }] } }) },
      'state Busy has no way out',
    ],
    [
      'a terminal state with a way out',
      { rules: rules({ Gone: { operatorMoves: ['Draft'] } }) },
      'state Gone is terminal but leads to Draft',
    ],
    [
      'a supported change no state allows',
      {
        rules: rules({
          Active: {
            allow: [{ changes: ['size.up'], next: 'Busy' }, { changes: ['label'] }],
            operatorMoves: ['Broken'],
          },
        }),
      },
      'change kind color is supported, but no state allows it',
    ],
    [
      'an unsupported change without a reason',
      { changeKinds: { ...toyMachine.changeKinds, 'size.down': { description: 'x', unsupported: ' ' } } },
      'size.down is unsupported without a reason',
    ],
    [
      'an override-only change without a reason',
      {
        ...toyOverrideOnlyMachine,
        changeKinds: { ...toyOverrideOnlyMachine.changeKinds, color: { description: 'x', overrideOnly: '' } },
      },
      'change kind color is override-only without a reason',
    ],
    [
      'a change both unsupported and override-only',
      {
        changeKinds: {
          ...toyMachine.changeKinds,
          'size.down': { description: 'x', unsupported: 'no', overrideOnly: 'a person decides' },
        },
      },
      'change kind size.down is both unsupported and override-only',
    ],
    [
      'a state allowing an override-only change',
      { changeKinds: toyOverrideOnlyMachine.changeKinds },
      "state Active allows color, which is override-only: it needs a person's reason in every state",
    ],
    [
      'an unknown placeholder',
      { changeKinds: { ...toyMachine.changeKinds, label: { description: 'relabelling {old}' } } },
      'uses {old}',
    ],
    [
      'a change kind no classifier reports',
      { classifiers: toyMachine.classifiers.slice(0, 2) },
      'change kind color is never reported by any classifier',
    ],
    [
      'a classifier reporting an unknown kind',
      {
        classifiers: [
          ...toyMachine.classifiers,
          fieldClassifier({ path: 'shape', read: String, compare: whenDifferent('shape' as ToyChange) }),
        ],
      },
      'a classifier reports shape, which is not a change kind',
    ],
    [
      'an override annotation without a prefix',
      { overrideAnnotation: 'override-transitions' },
      'must be a prefixed annotation key',
    ],
    ['no phase path', { phasePath: '' }, 'phasePath is empty'],
    [
      'an unknown steady state',
      { steadyState: 'Nowhere' as ToyState },
      'steady state Nowhere is not one of the states',
    ],
    [
      'the deleting state as the steady state',
      { steadyState: 'Gone' },
      'steady state Gone is where an object goes away',
    ],
  ])('reports %s', (_, parts, problem) => {
    expect(checkMachine(broken(parts))).toContainEqual(expect.stringContaining(problem));
  });

  it('reports one problem for one isolated defect', () => {
    expect(checkMachine(broken({ initialState: 'Nowhere' as ToyState }))).toHaveLength(1);
    expect(checkMachine(broken({ rules: rules({ Busy: { allow: [{ changes: ['label'] }] } }) }))).toHaveLength(1);
    expect(checkMachine(broken({ classifiers: toyMachine.classifiers.slice(0, 2) }))).toHaveLength(1);
  });

  it('accepts a change kind that is override-only, which no state allows by design', () => {
    expect(checkMachine(toyOverrideOnlyMachine)).toEqual([]);
  });

  it('accepts a state without a way out when a person must take over', () => {
    expect(
      checkMachine(
        broken({
          humanInterventionStates: ['Broken', 'Busy'],
          rules: rules({ Busy: { allow: [{ changes: ['label'] }] } }),
        }),
      ),
    ).toEqual([]);
  });

  it('reports every problem, not only the first', () => {
    expect(
      checkMachine(broken({ initialState: 'Nowhere' as ToyState, overrideAnnotation: '' })).length,
    ).toBeGreaterThan(1);
  });
});

describe('checkMachine: how the state is read', () => {
  it('holds the phase table to the states, and to one way of reading', () => {
    expect(
      checkMachine({ ...toyMachine, phases: { 'All good': 'Active', 'On fire': 'Burning' as never, '': 'Draft' } }),
    ).toEqual([
      'phases maps "On fire" to Burning, which is not one of the states',
      'phases maps "", which means no phase recorded yet (the initial state)',
    ]);
    expect(checkMachine({ ...toyMachine, phases: {} })).toEqual([
      'phases is empty: list the phase strings the operator writes, each with its state',
    ]);
    expect(
      checkMachine({
        ...toyMachine,
        phasePath: undefined,
        phases: { 'All good': 'Active' },
        readState: () => 'Active',
      }),
    ).toEqual(['phases and readState both read the state: give one']);
    expect(checkMachine({ ...toyMachine, readState: 'status.phase' as never })).toEqual([
      'readState must be a function of the stored object, got "status.phase"',
    ]);
    expect(checkMachine({ ...toyMachine, phases: { 'Cluster in healthy state': 'Active' } })).toEqual([]);
  });

  // Issue 40: a machine with readState and no phasePath crashed on phasePath.trim().
  it('reads the state from phasePath or with readState: one of them, not both', () => {
    expect(checkMachine({ ...toyMachine, phasePath: undefined, readState: () => 'Active' })).toEqual([]);
    expect(checkMachine({ ...toyMachine, readState: () => 'Active' })).toEqual([
      'phasePath and readState both read the state: give one',
    ]);
    expect(checkMachine({ ...toyMachine, phasePath: undefined })).toEqual([
      'phasePath must be a field path such as status.phase (or read the state with conditionStates or readState), got undefined',
    ]);
  });
});

describe('checkMachine: conditionStates', () => {
  const rules: Fsa<ToyState, ToyChange>['conditionStates'] = [
    { when: [{ condition: 'Ready', absent: true }], nothingRecorded: true },
    { when: [{ observedGeneration: 'behind' }], state: 'Busy' },
    { when: [{ condition: 'Ready', status: 'True' }], state: 'Active' },
    { when: [{ condition: 'Ready', status: 'False', reason: 'Stuck' }], state: 'Broken' },
  ];
  const withRules = (conditionStates: unknown) =>
    ({ ...toyMachine, phasePath: undefined, conditionStates }) as Fsa<ToyState, ToyChange>;

  it('reads the state from the rules alone', () => {
    expect(checkMachine(withRules(rules))).toEqual([]);
    expect(checkMachine({ ...toyMachine, conditionStates: rules })).toEqual([
      'phasePath and conditionStates both read the state: give one',
    ]);
    expect(checkMachine({ ...withRules(rules), readState: () => 'Active' })).toEqual([
      'conditionStates and readState both read the state: give one',
    ]);
  });

  it('holds each rule to a state, or to nothing recorded, and each test to one of its forms', () => {
    expect(
      checkMachine(
        withRules([
          { when: [{ condition: 'Ready' }] },
          { when: [{ condition: 'Ready', status: 'True' }], state: 'Active', nothingRecorded: true },
          { when: [{ condition: 'Ready', status: 'True' }], state: 'Sleeping' },
          {
            when: [
              { condition: 'Ready', absent: true, status: 'True' },
              { observedGeneration: 'behind', reason: 'x' },
            ],
            state: 'Busy',
          },
          {
            when: [{}, { condition: 'Ready', observedGeneration: 'current' }, { condition: '', reason: '' }],
            state: 'Busy',
          },
          { when: [], state: 'Broken' },
          { when: [{ condition: 'Ready', status: 'False' }], state: 'Busy' },
        ]),
      ),
    ).toEqual([
      'conditionStates[0] must give a state or nothingRecorded: true, not neither',
      'conditionStates[1] must give a state or nothingRecorded: true, not both',
      'conditionStates[2] names Sleeping, which is not one of the states',
      'conditionStates[3].when[0] tests that no Ready condition exists, so it has no status or reason to test',
      'conditionStates[3].when[1] tests the observedGeneration, which has no status, reason or absent',
      'conditionStates[4].when[0] must test a condition or the observedGeneration, not neither',
      'conditionStates[4].when[1] must test a condition or the observedGeneration, not both',
      'conditionStates[4].when[2].condition is empty: conditions always carry one, so name it',
      'conditionStates[4].when[2].reason is empty: conditions always carry one, so name it',
      'conditionStates[6] never applies: conditionStates[5] before it has no tests, so it always holds',
    ]);
    expect(checkMachine(withRules([]))).toEqual([
      'conditionStates is empty: give the rules that read the state from the conditions',
    ]);
  });

  it('checks the shape of the rules first, a misspelt key included', () => {
    expect(checkMachine(withRules([{ when: [{ condition: 'Ready', stauts: 'True' }], state: 'Active' }]))).toEqual([
      'conditionStates[0].when[0].stauts is not a field it can have (condition, status, reason, absent, observedGeneration)',
    ]);
    expect(
      checkMachine(withRules([{ when: [{ observedGeneration: 'late' }], state: 'Active', nothingRecorded: false }])),
    ).toEqual([
      "conditionStates[0].when[0].observedGeneration must be 'behind' or 'current', got \"late\"",
      'conditionStates[0].nothingRecorded must be true, got false',
    ]);
    expect(checkMachine(withRules({ Ready: 'Active' }))).toEqual([
      'conditionStates must be a list of conditionStates rules, got an object',
    ]);
  });
});

describe('checkMachine: absentMeans goes through the reader', () => {
  const withClassifier = (classifier: Machine['classifiers'][number]): Machine => ({
    ...toyMachine,
    classifiers: [...toyMachine.classifiers.filter((c) => !c.kinds.includes('label')), classifier],
  });

  it('refuses one its reader leaves to the schema, naming the field and the value', () => {
    expect(
      checkMachine(
        withClassifier(
          fieldClassifier({ path: 'label', absentMeans: 5, read: readString, compare: whenDifferent('label') }),
        ),
      ),
    ).toEqual([
      "the classifier of spec.label: its absentMeans 5 is not a value its reader reads (a value of another type than the field's), so setting or removing the field would compare as no change: give the default as the field holds it, or cannotRead(reason) where absence cannot be judged",
    ]);
  });

  it('refuses one its reader cannot tell the meaning of, or fails on, below a keyed list too', () => {
    const latest = fieldClassifier({
      path: 'label',
      absentMeans: 'latest',
      read: readRelease,
      compare: whenDifferent('label'),
    });
    expect(checkMachine(withClassifier(latest))).toEqual([
      'the classifier of spec.label: its reader cannot tell what its absentMeans "latest" means ("latest" is not a release number such as 16.4): give the default as the field holds it, or cannotRead(reason) where absence cannot be judged',
    ]);
    const failing = fieldClassifier({
      path: 'tier',
      absentMeans: 'gold',
      read: (raw): string => {
        throw new Error(`no tier ${String(raw)}`);
      },
      compare: whenDifferent('label'),
    });
    const list = keyedListClassifier({
      path: 'parts',
      key: 'name',
      added: 'label',
      removed: 'label',
      itemClassifiers: [failing],
    });
    expect(checkMachine(withClassifier(list))).toEqual([
      'the classifier of spec.parts[*].tier: its reader cannot tell what its absentMeans "gold" means (the reader failed: no tier gold): give the default as the field holds it, or cannotRead(reason) where absence cannot be judged',
    ]);
  });

  it('takes one its reader reads, and cannotRead(reason), which says absence cannot be judged', () => {
    for (const absentMeans of ['standard', cannotRead('the operator picks it')])
      expect(
        checkMachine(
          withClassifier(
            fieldClassifier({ path: 'label', absentMeans, read: readString, compare: whenDifferent('label') }),
          ),
        ),
      ).toEqual([]);
    expect(
      checkMachine(
        withClassifier(
          fieldClassifier({ path: 'label', absentMeans: '16.4', read: parseVersion, compare: whenDifferent('label') }),
        ),
      ),
    ).toEqual([]);
  });
});
