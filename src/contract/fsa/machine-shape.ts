import {
  aFunction,
  anything,
  cases,
  flag,
  listOf,
  maybe,
  oneOf,
  recordOf,
  recursive,
  shapeProblems,
  text,
  withFields,
  type OptionPlace,
  type OptionShape,
} from '../values/option-shape.ts';
import type { ClassifierTarget, ValueOrder, ValueReading } from './classifier-form.ts';
import { unclassifiedChangesSettings } from './unclassified-setting.ts';

// The shape of an FSA's options (machine.ts), checked before the self-check reads any of them.

// Records over the union types, so that a reading or order added to classifier-form.ts fails the type check here
// until the shape knows it too.
const readings: Record<ValueReading, true> = { integer: true, string: true, quantity: true, release: true };
const orders: Record<ValueOrder, true> = { number: true, quantity: true, release: true };
const targetReadings: Record<Extract<ClassifierTarget, { classify: 'field' }>['reading'], true> = {
  ...readings,
  custom: true,
};
const unclassifiedChanges = maybe(oneOf(unclassifiedChangesSettings));

const stateName = text('a state name');
const stateNames = listOf(stateName, 'a list of state names');
const changeKind = text('a change kind');
const changeKinds = listOf(changeKind, 'a list of change kinds');
const fieldPath = text('a field path such as spec.size');

const comparisonForm = cases('compare', 'a comparison form', {
  different: { kind: changeKind },
  direction: { order: oneOf(Object.keys(orders)), increase: changeKind, decrease: changeKind },
  'release-step': { upgrade: changeKind, major: changeKind, downgrade: changeKind },
});

const classifierForm: OptionShape = cases('classify', 'a classifier form', {
  field: { path: fieldPath, absentMeans: anything, reading: oneOf(Object.keys(readings)), comparison: comparisonForm },
  'keyed-list': {
    path: fieldPath,
    keys: listOf(text('the name of a key field'), 'a list of key field names'),
    absentMeans: maybe(listOf(anything, 'a list')),
    added: changeKind,
    removed: changeKind,
    items: listOf(
      withFields('an item classifier: { kinds, form? }', {
        kinds: changeKinds,
        form: maybe(recursive(() => classifierForm)),
      }),
      'a list of item classifiers',
    ),
  },
});

const classifierTarget: OptionShape = cases('classify', 'a classifier target', {
  field: {
    path: fieldPath,
    reading: oneOf(Object.keys(targetReadings)),
    absentMeansUnread: maybe(text('a string, why the reader cannot read absentMeans')),
  },
  'keyed-list': {
    path: fieldPath,
    keys: listOf(text('the name of a key field'), 'a list of key field names'),
    items: listOf(maybe(recursive(() => classifierTarget)), 'a list of item targets'),
  },
});

const classifier = withFields('a classifier: { kinds, classify }', {
  kinds: changeKinds,
  classify: aFunction('a function of the old and the new value'),
  form: maybe(classifierForm),
  target: maybe(classifierTarget),
});

const stateRule = withFields('a state rule: { anyChange?, allow?, operatorMoves?, unclassifiedChanges? }', {
  anyChange: maybe(flag),
  unclassifiedChanges,
  allow: maybe(
    listOf(
      withFields('allowed changes: { changes, next? }', { changes: changeKinds, next: maybe(stateName) }),
      'a list of allowed changes',
    ),
  ),
  operatorMoves: maybe(stateNames),
});

const statusTest = withFields(
  'a status test: { condition, status?, reason? }, { condition, absent: true } or { observedGeneration }',
  {
    condition: maybe(text('a condition type such as Ready')),
    status: maybe(text("a condition status such as 'True'")),
    reason: maybe(text('a condition reason')),
    absent: maybe(oneOf([true])),
    observedGeneration: maybe(oneOf(['behind', 'current'])),
  },
  'none',
);

const conditionStateRule = withFields(
  'a conditionStates rule: { when, state } or { when, nothingRecorded: true }',
  {
    when: listOf(statusTest, 'a list of status tests'),
    state: maybe(stateName),
    nothingRecorded: maybe(oneOf([true])),
  },
  'none',
);

const changeKindDefinition = withFields('a change kind: { description, unsupported?, overrideOnly?, exclusive? }', {
  description: text('a string, how a message names one change'),
  unsupported: maybe(text('a string, the reason')),
  overrideOnly: maybe(text('a string, why a person must give a reason')),
  exclusive: maybe(flag),
});

export const machineShape = withFields('an FSA: { name, subject, states, ..., rules, classifiers }', {
  name: text('a string, the kind the machine is about'),
  subject: text('a string, how messages name the object'),
  states: stateNames,
  initialState: stateName,
  steadyState: maybe(stateName),
  deletingState: stateName,
  terminalStates: stateNames,
  humanInterventionStates: stateNames,
  phasePath: maybe(text('a field path such as status.phase')),
  phases: maybe(recordOf(stateName, "an object of the operator's phase strings to states")),
  readState: maybe(aFunction('a function of the stored object')),
  conditionStates: maybe(listOf(conditionStateRule, 'a list of conditionStates rules')),
  unclassifiedChanges,
  changeKinds: recordOf(changeKindDefinition, 'an object of change kinds to their descriptions'),
  rules: recordOf(stateRule, 'an object of states to their rules'),
  overrideAnnotation: text('an annotation key such as example.com/override-transitions'),
  classifiers: listOf(classifier, 'a list of classifiers'),
});

/**
 * What is wrong with the shape of a machine, one sentence per option, naming its path from `place`; empty when
 * every option has its type. The state is read from the phase at phasePath unless conditionStates or readState reads it.
 */
export function machineShapeProblems(machine: unknown, place: OptionPlace): string[] {
  const problems = shapeProblems(machine, machineShape, place);
  const options = typeof machine === 'object' && machine !== null ? (machine as Record<string, unknown>) : undefined;
  if (
    options !== undefined &&
    options['phasePath'] === undefined &&
    options['readState'] === undefined &&
    options['conditionStates'] === undefined
  ) {
    const path = shapeProblems(
      undefined,
      text('a field path such as status.phase (or read the state with conditionStates or readState)'),
      { ...place, path: [...place.path, 'phasePath'] },
    );
    problems.push(...path);
  }
  return problems;
}
