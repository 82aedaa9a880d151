import type { FieldError } from '../../field-error.ts';
import type { KubeObject } from '../../kube-object.ts';
import { judgeChanges, judgeUnclassified, type JudgedChange, type JudgedUnclassifiedChanges } from './judge-changes.ts';
import type { Change, TransitionMachine } from '../machine.ts';
import { readOverride, reportOverride, type OverrideRequest } from './override.ts';
import { readState, type StateReading } from '../phase.ts';
import { denialFor, unclassifiedDenials } from './transition-messages.ts';
import { findUnclassifiedChanges, type ClassifiedBy } from '../unclassified-changes.ts';
import type { UpdateRule } from '../../define-contract.ts';

export interface TransitionDecision<S extends string, C extends string> {
  /** The state the update starts from, read from the old object. */
  state: StateReading<S>;
  /** Every change the update carries, each with the machine's ruling on it. */
  changes: JudgedChange<S, C>[];
  /**
   * The spec changes no classifier names, and the state's ruling on them. Looked for only where the state does not
   * allow them (TransitionMachine.unclassifiedChanges); where it does, none are listed.
   */
  unclassified: JudgedUnclassifiedChanges;
  override: OverrideRequest;
  allowed: boolean;
  /** One `FieldValueForbidden` per change that does not pass, and one for the unclassified changes past those named. */
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
  const classified = classifyEach(machine, oldObject.spec, newObject.spec);
  const changes = judgeChanges(machine, state, classified.flatMap((each) => each.changes), override.given);
  const unclassified = judgeUnclassifiedChanges(machine, state, override.given, classified, oldObject.spec, newObject.spec);
  const denials = [...changes.flatMap((judged) => denialFor(machine, state, judged) ?? []), ...unclassifiedDenials(machine, state, unclassified)];
  const allowed = denials.length === 0;
  const { warnings, auditAnnotations } = reportOverride(machine, state, override, changes, allowed, unclassified);
  return { state, changes, unclassified, override, allowed, denials, warnings, auditAnnotations };
}

function judgeUnclassifiedChanges<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  state: StateReading<S>,
  overriding: boolean,
  classified: readonly ClassifiedBy<C>[],
  oldSpec: unknown,
  newSpec: unknown,
): JudgedUnclassifiedChanges {
  const ruling = judgeUnclassified(machine, state, overriding);
  // Where they are allowed, as by default, there is nothing to look for.
  if (ruling.outcome === 'allowed') return { ruling, changes: [], more: 0 };
  return { ruling, ...findUnclassifiedChanges(classified, oldSpec, newSpec) };
}

/** Every change between two specs, in the order of the machine's classifiers. */
export function classifyChanges<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  oldSpec: unknown,
  newSpec: unknown,
): Change<C>[] {
  return classifyEach(machine, oldSpec, newSpec).flatMap((each) => each.changes);
}

/** Each classifier's changes between two specs, in the machine's order. */
function classifyEach<S extends string, C extends string>(machine: TransitionMachine<S, C>, oldSpec: unknown, newSpec: unknown): ClassifiedBy<C>[] {
  return machine.classifiers.map((classifier) => ({ classifier, changes: classifier.classify(oldSpec, newSpec, { field: 'spec' }) }));
}

/** The machine as one of a contract's update rules. */
export function transitionRule<S extends string, C extends string>(machine: TransitionMachine<S, C>): UpdateRule {
  return ({ oldObject, object }) => {
    const { denials, warnings, auditAnnotations } = evaluateTransition(machine, oldObject, object);
    return { forbidden: denials, warnings, auditAnnotations };
  };
}
