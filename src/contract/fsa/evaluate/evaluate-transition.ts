import type { FieldError } from '../../values/field-error.ts';
import type { KubeObject } from '../../values/kube-object.ts';
import { judgeChanges, judgeUnclassified, type JudgedChange, type JudgedUnclassifiedChanges } from './judge-changes.ts';
import type { Change, Fsa } from '../machine.ts';
import { readOverride, reportOverride, type OverrideRequest } from './override.ts';
import { readState, type StateReading } from '../phase.ts';
import { denialFor, unclassifiedDenials } from './transition-messages.ts';
import { findUnclassifiedChanges, type ClassifiedBy } from '../unclassified-changes.ts';
import type { UpdateFindings, UpdateInput } from '../../values/object-rules.ts';

export interface TransitionDecision<S extends string, C extends string> {
  /** The state the update starts from, read from the old object. */
  state: StateReading<S>;
  /** Every change the update carries, each with the machine's ruling on it. */
  changes: JudgedChange<S, C>[];
  /**
   * The spec changes no classifier names, and the state's ruling on them. Looked for only where the state does not
   * allow them (Fsa.unclassifiedChanges); where it does, none are listed.
   */
  unclassified: JudgedUnclassifiedChanges;
  override: OverrideRequest;
  allowed: boolean;
  /** One `FieldValueForbidden` per change that does not pass, and one for the unclassified changes past those named. */
  denials: FieldError[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/**
 * A change's values as its messages show them: the webhook gives one that shows them as a client of an older version
 * wrote them (see src/admission/client-values.ts). It never changes the ruling, which is on the hub's values.
 */
export type ChangeDisplay = <C extends string>(change: Change<C>) => Change<C>;

/**
 * The machine's decision on an update from `oldObject` to `newObject`: a pure function of the two (and, offline, of
 * the state assumed for an old object that records none: see readState). `show` words the changes' values in its
 * denials; the decision's `changes`, warnings and audit annotations keep the hub's.
 */
export function evaluateTransition<S extends string, C extends string>(
  machine: Fsa<S, C>,
  oldObject: KubeObject,
  newObject: KubeObject,
  assumedState?: S,
  show?: ChangeDisplay,
): TransitionDecision<S, C> {
  const state = readState(machine, oldObject, assumedState);
  const override = readOverride(machine, newObject, oldObject);
  const staleOverride = !override.given && override.why === 'stale';
  const classified = classifyEach(machine, oldObject.spec, newObject.spec);
  const changes = judgeChanges(
    machine,
    state,
    classified.flatMap((each) => each.changes),
    override.given,
  );
  const unclassified = judgeUnclassifiedChanges(
    machine,
    state,
    override.given,
    classified,
    oldObject.spec,
    newObject.spec,
  );
  const shown = show === undefined ? changes : changes.map((judged) => ({ ...judged, change: show(judged.change) }));
  const denials = [
    ...shown.flatMap((judged) => denialFor(machine, state, judged, staleOverride) ?? []),
    ...unclassifiedDenials(machine, state, unclassified, staleOverride),
  ];
  const allowed = denials.length === 0;
  const { warnings, auditAnnotations } = reportOverride(machine, state, override, changes, allowed, unclassified);
  return { state, changes, unclassified, override, allowed, denials, warnings, auditAnnotations };
}

function judgeUnclassifiedChanges<S extends string, C extends string>(
  machine: Fsa<S, C>,
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
  machine: Fsa<S, C>,
  oldSpec: unknown,
  newSpec: unknown,
): Change<C>[] {
  return classifyEach(machine, oldSpec, newSpec).flatMap((each) => each.changes);
}

/** Each classifier's changes between two specs, in the machine's order. */
function classifyEach<S extends string, C extends string>(
  machine: Fsa<S, C>,
  oldSpec: unknown,
  newSpec: unknown,
): ClassifiedBy<C>[] {
  return machine.classifiers.map((classifier) => ({
    classifier,
    changes: classifier.classify(oldSpec, newSpec, { field: 'spec' }),
  }));
}

/**
 * What an update rule is told besides the two objects. Only `crdgate check` and contractTester assume a state;
 * the contract's own rules are given the objects alone.
 */
export interface UpdateContext {
  /** The state of an old object that records none (see readState). */
  assumedState?: string;
  /** How the machine's messages show a change's values: the client's version's, for a write in an older version. */
  showChange?: ChangeDisplay;
}

/** An update rule as the registry compiles it: the machine reads the context, a contract's own rules do not. */
export type CompiledUpdateRule = (input: UpdateInput, context: UpdateContext) => UpdateFindings;

/** The machine as one of a contract's update rules. */
export function transitionRule<S extends string, C extends string>(machine: Fsa<S, C>): CompiledUpdateRule {
  return ({ oldObject, object }, { assumedState, showChange }) => {
    const assumed =
      assumedState !== undefined && (machine.states as readonly string[]).includes(assumedState)
        ? (assumedState as S)
        : undefined;
    const { denials, warnings, auditAnnotations } = evaluateTransition(machine, oldObject, object, assumed, showChange);
    return { forbidden: denials, warnings, auditAnnotations };
  };
}
