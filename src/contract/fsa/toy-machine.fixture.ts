import { byDirection, whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import type { ConditionStateRule, Fsa } from './machine.ts';
import { readInteger, readString } from './value-readers.ts';
import { compareNumbers } from './classifier-form.ts';

// A machine small enough to reason about in the engine's tests, with one of everything: a state that allows any
// change, a stay and a move, an unsupported kind, two exclusive kinds, a human-intervention and a terminal state.

export type ToyState = 'Draft' | 'Active' | 'Busy' | 'Broken' | 'Gone';
export type ToyChange = 'size.up' | 'size.down' | 'label' | 'color';

export const toyMachine: Fsa<ToyState, ToyChange> = {
  name: 'Widget',
  subject: 'widget',
  states: ['Draft', 'Active', 'Busy', 'Broken', 'Gone'],
  initialState: 'Draft',
  steadyState: 'Active',
  deletingState: 'Gone',
  terminalStates: ['Gone'],
  humanInterventionStates: ['Broken'],
  phasePath: 'status.phase',
  changeKinds: {
    'size.up': { description: 'growing from {from} to {to}', exclusive: true },
    'size.down': { description: 'shrinking from {from} to {to}', unsupported: 'widgets cannot shrink' },
    label: { description: 'relabelling from {from} to {to}' },
    color: { description: 'repainting from {from} to {to}', exclusive: true },
  },
  rules: {
    Draft: { anyChange: true, operatorMoves: ['Active', 'Broken'] },
    Active: {
      allow: [{ changes: ['size.up', 'color'], next: 'Busy' }, { changes: ['label'] }],
      operatorMoves: ['Broken'],
    },
    Busy: { allow: [{ changes: ['label'] }], operatorMoves: ['Active', 'Broken'] },
    Broken: {},
    Gone: {},
  },
  overrideAnnotation: 'toy.example.com/override-transitions',
  classifiers: [
    fieldClassifier({
      path: 'size',
      absentMeans: 1,
      read: readInteger,
      compare: byDirection({ compare: compareNumbers, increase: 'size.up', decrease: 'size.down' }),
    }),
    fieldClassifier({ path: 'label', read: readString, compare: whenDifferent('label') }),
    fieldClassifier({ path: 'color', read: readString, compare: whenDifferent('color') }),
  ],
};

/**
 * The toy machine with repainting override-only: no state allows it, and a person's reason lets it through in any
 * state (Draft, which allows any change, lets it through without one).
 */
export const toyOverrideOnlyMachine: Fsa<ToyState, ToyChange> = {
  ...toyMachine,
  changeKinds: {
    ...toyMachine.changeKinds,
    color: { description: 'repainting from {from} to {to}', exclusive: true, overrideOnly: 'the paint shop closes' },
  },
  rules: {
    ...toyMachine.rules,
    Active: { allow: [{ changes: ['size.up'], next: 'Busy' }, { changes: ['label'] }], operatorMoves: ['Broken'] },
  },
};

/**
 * The toy machine's states read from a Ready condition and the observed generation, as an operator that records no
 * phase writes them: nothing recorded before the first Ready condition, Busy while the operator has not seen the
 * latest spec, Broken when it is stuck.
 */
export const toyConditionStates: readonly ConditionStateRule<ToyState>[] = [
  { when: [{ condition: 'Ready', absent: true }], nothingRecorded: true },
  { when: [{ observedGeneration: 'behind' }], state: 'Busy' },
  { when: [{ condition: 'Ready', status: 'True' }, { observedGeneration: 'current' }], state: 'Active' },
  { when: [{ condition: 'Ready', status: 'False', reason: 'Stuck' }], state: 'Broken' },
  { when: [{ condition: 'Ready', status: 'False' }], state: 'Busy' },
];

/** A widget in `phase` (none: never reconciled) with `spec`. */
export function widget(spec: Record<string, unknown>, phase?: string, annotations?: Record<string, string>) {
  return {
    apiVersion: 'toy.example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec,
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}
