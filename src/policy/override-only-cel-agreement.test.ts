import { describe, expect, it } from 'vitest';
import { defineContract, type Contract, type JSONSchemaProps } from '../index.ts';
import { evaluateTransition } from '../contract/fsa/evaluate/evaluate-transition.ts';
import type { Fsa } from '../contract/fsa/machine.ts';
import { toyOverrideOnlyMachine, type ToyChange, type ToyState } from '../contract/fsa/toy-machine.fixture.ts';
import { formatFieldError } from '../contract/values/field-error.ts';
import { compileContractPolicy } from './compile-policy.ts';
import { policyAllows, policyMessages } from './policy-cel.fixture.ts';

// An override-only change kind in the policy floor, against the webhook's decision, in kube-apiserver's own CEL
// environment (the engine's evaluateCel, as classifier-cel-agreement.test.ts explains): refused in every state without
// the override, let through with it, and where any change is, let through without it; worded as the webhook words
// it. Once with the state read from the phase, once by a readState the policy cannot compile, where only a machine
// with no state that allows any change can be enforced (the override reads no state).

const short: JSONSchemaProps = { type: 'string', maxLength: 16 };
const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'integer' }, label: short, color: short } },
    status: { type: 'object', properties: { phase: { type: 'string', maxLength: 32 } } },
  },
};

function widgetContract(machine: Fsa<ToyState, ToyChange>): Contract {
  return defineContract({
    identity: { group: 'toy.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
    hub: 'v1',
    versions: [{ name: 'v1', served: true, storage: true, schema, subresources: { status: {} } }],
    conversions: {},
    transitions: machine,
  });
}

const key = 'toy.example.com/override-transitions';
const annotationSets: Record<string, string>[] = [{}, { [key]: 'INC-7' }, { [key]: ' ' }];
const specPairs: [Record<string, unknown>, Record<string, unknown>][] = [
  [{ color: 'red' }, { color: 'blue' }],
  [{}, { color: 'blue' }],
  // The empty string shows as "", in the webhook's words and the policy's alike: no message shows a blank.
  [{ color: '' }, { color: 'blue' }],
  [
    { color: 'red', label: 'a' },
    { color: 'red', label: 'b' },
  ],
  [
    { color: 'red', size: 1 },
    { color: 'blue', size: 2 },
  ],
];

function updates(phases: readonly (string | undefined)[]) {
  return phases.flatMap((phase) =>
    specPairs.flatMap(([oldSpec, newSpec]) =>
      annotationSets.flatMap((annotations) =>
        annotationSets.map((oldAnnotations) => ({
          old: {
            apiVersion: 'toy.example.com/v1',
            kind: 'Widget',
            metadata: { name: 'w', annotations: oldAnnotations },
            spec: oldSpec,
            ...(phase === undefined ? {} : { status: { phase } }),
          },
          new: {
            apiVersion: 'toy.example.com/v1',
            kind: 'Widget',
            metadata: { name: 'w', annotations },
            spec: newSpec,
          },
        })),
      ),
    ),
  );
}

function expectAgreement(machine: Fsa<ToyState, ToyChange>, phases: readonly (string | undefined)[]) {
  const contract = widgetContract(machine);
  const policy = compileContractPolicy(contract);
  expect(policy.coverage.changeKinds.find((entry) => entry.kind === 'color')).toEqual({
    kind: 'color',
    enforcedBy: 'policy',
  });
  const cases = updates(phases);
  const allowed = policyAllows(policy, cases);
  const messages = policyMessages(policy, cases);
  let refused = 0;
  cases.forEach((update, index) => {
    const decision = evaluateTransition(machine, update.old, update.new);
    const what = JSON.stringify(update);
    expect(allowed[index], what).toBe(decision.allowed);
    // Where the repaint is the one refusal, the policy's first refusal is it, in the webhook's words. (With others,
    // the policy names its first, and words an exclusive conflict in its own way.)
    if (!decision.allowed && decision.denials.every((denial) => denial.field === 'spec.color')) {
      refused++;
      expect(messages[index]?.[0], what).toBe(formatFieldError(decision.denials[0]!));
    }
  });
  return { cases: cases.length, refused };
}

describe('the policy floor decides an override-only change kind as the webhook does', () => {
  it('with the state read from the phase: every state, an unrecognised phase and none recorded', () => {
    const counts = expectAgreement(toyOverrideOnlyMachine, [...toyOverrideOnlyMachine.states, 'Rebooting', undefined]);
    expect(counts.cases).toBe(7 * 5 * 9);
    // Floors, so that a generator cut short fails: most states refuse a repaint without a fresh reason.
    expect(counts.refused).toBeGreaterThan(50);
  });

  it('with a state reader the policy cannot compile, and no state that allows any change: it reads no state', () => {
    const machine: Fsa<ToyState, ToyChange> = {
      ...toyOverrideOnlyMachine,
      phasePath: undefined,
      readState: (object) => (object.status as { phase?: ToyState } | undefined)?.phase ?? undefined,
      rules: {
        ...toyOverrideOnlyMachine.rules,
        Draft: { allow: [{ changes: ['label'] }], operatorMoves: ['Active', 'Broken'] },
      },
    };
    const counts = expectAgreement(machine, ['Draft', 'Active', 'Busy']);
    expect(counts.refused).toBeGreaterThan(15);
  });
});
