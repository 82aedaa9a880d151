import type { FieldError } from '../../field-error.ts';
import type { KubeObject } from '../../kube-object.ts';
import { judgeChanges, type JudgedChange } from './judge-changes.ts';
import type { Change, TransitionMachine } from '../machine.ts';
import { readOverride, reportOverride, type OverrideRequest } from './override.ts';
import { readState, type StateReading } from '../phase.ts';
import { denialFor } from './transition-messages.ts';
import type { UpdateFindings, UpdateInput } from '../../define-contract.ts';

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

/**
 * The machine's decision on an update from `oldObject` to `newObject`: a pure function of the two (and, offline, of
 * the state assumed for an old object that records none: see readState).
 */
export function evaluateTransition<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  oldObject: KubeObject,
  newObject: KubeObject,
  assumedState?: S,
): TransitionDecision<S, C> {
  const state = readState(machine, oldObject, assumedState);
  const override = readOverride(machine, newObject, oldObject);
  const changes = judgeChanges(machine, state, classifyChanges(machine, oldObject.spec, newObject.spec), override.given);
  const denials = changes.flatMap((judged) => denialFor(machine, state, judged, !override.given && override.why === 'stale') ?? []);
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

/**
 * What an update rule is told besides the two objects. Only `crdgate check` and contractTester assume a state;
 * the contract's own rules are given the objects alone.
 */
export interface UpdateContext {
  /** The state of an old object that records none (see readState). */
  assumedState?: string;
}

/** An update rule as the registry compiles it: the machine reads the context, a contract's own rules do not. */
export type CompiledUpdateRule = (input: UpdateInput, context: UpdateContext) => UpdateFindings;

/** The machine as one of a contract's update rules. */
export function transitionRule<S extends string, C extends string>(machine: TransitionMachine<S, C>): CompiledUpdateRule {
  return ({ oldObject, object }, { assumedState }) => {
    const assumed = assumedState !== undefined && (machine.states as readonly string[]).includes(assumedState) ? (assumedState as S) : undefined;
    const { denials, warnings, auditAnnotations } = evaluateTransition(machine, oldObject, object, assumed);
    return { forbidden: denials, warnings, auditAnnotations };
  };
}
