import type { FieldError } from '../../field-error.ts';
import type { KubeObject } from '../../kube-object.ts';
import { judgeChanges, type JudgedChange } from './judge-changes.ts';
import type { Change, TransitionMachine } from '../machine.ts';
import { readOverride, reportOverride, type OverrideRequest } from './override.ts';
import { readState, type StateReading } from '../phase.ts';
import { denialFor } from './transition-messages.ts';
import type { UpdateRule } from '../../define-contract.ts';

export interface TransitionDecision<S extends string, C extends string> {
  /** The state the update starts from, read from the old object. */
  state: StateReading<S>;
  /** Every change the update carries, each with the machine's ruling on it. */
  changes: JudgedChange<S, C>[];
  override: OverrideRequest;
  allowed: boolean;
  /** One `FieldValueForbidden` per change that does not pass. */
  denials: FieldError[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** The machine's decision on an update from `oldObject` to `newObject`: a pure function of the two. */
export function evaluateTransition<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  oldObject: KubeObject,
  newObject: KubeObject,
): TransitionDecision<S, C> {
  const state = readState(machine, oldObject);
  const override = readOverride(machine, newObject);
  const changes = judgeChanges(machine, state, classifyChanges(machine, oldObject.spec, newObject.spec), override.given);
  const denials = changes.flatMap((judged) => denialFor(machine, state, judged) ?? []);
  const allowed = denials.length === 0;
  const { warnings, auditAnnotations } = reportOverride(machine, state, override, changes, allowed);
  return { state, changes, override, allowed, denials, warnings, auditAnnotations };
}

/** Every change between two specs, in the order of the machine's classifiers. */
export function classifyChanges<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  oldSpec: unknown,
  newSpec: unknown,
): Change<C>[] {
  return machine.classifiers.flatMap((classifier) => classifier.classify(oldSpec, newSpec, { field: 'spec' }));
}

/** The machine as one of a contract's update rules. */
export function transitionRule<S extends string, C extends string>(machine: TransitionMachine<S, C>): UpdateRule {
  return ({ oldObject, object }) => {
    const { denials, warnings, auditAnnotations } = evaluateTransition(machine, oldObject, object);
    return { forbidden: denials, warnings, auditAnnotations };
  };
}
