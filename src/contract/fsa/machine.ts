import type { KubeObject } from '../values/kube-object.ts';
import type { ClassifierForm, ClassifierTarget } from './classifier-form.ts';

/**
 * The FSA of a custom resource: which spec changes the operator can carry out in which lifecycle
 * state, and where each one takes it. It is data, so it can be checked at start-up (check-machine.ts), rendered
 * as a diagram (render-machine.ts) and applied to updates (evaluate-transition.ts) without a second source of truth.
 *
 * `S` names the states (Kubernetes phases, UpperCamelCase), `C` the kinds of change (`storage.grow`).
 */
export interface Fsa<S extends string, C extends string> {
  /** The kind the machine is about, for diagram titles: `GeoDatabase`. */
  name: string;
  /** How messages refer to the object: "while the database is Upgrading". */
  subject: string;
  /** Every state, in the order diagrams and tables list them. */
  states: readonly S[];
  /** The state of an object whose old version records no phase: nothing has been provisioned yet. */
  initialState: S;
  /**
   * The state in which an existing object normally is (provisioned, nothing in progress). Optional; `crdgate check
   * --old` assumes it for a previous revision's manifest that records no phase, as GitOps manifests seldom do.
   */
  steadyState?: S;
  /** The state of an object whose `metadata.deletionTimestamp` is set, whatever its phase says. */
  deletingState: S;
  /** States with no way out by design (the object is going away). */
  terminalStates: readonly S[];
  /** States only a person gets an object out of; the operator has given up. */
  humanInterventionStates: readonly S[];
  /**
   * Where the old object records its state: `status.phase`. Required unless readState or conditionStates reads the
   * state, and not given with either.
   */
  phasePath?: string;
  /**
   * The operator's phase strings, when they are not the states' own names: any string to the state it means
   * (`'Cluster in healthy state': 'Ready'`). With it, the phase at phasePath is read through this table alone: a
   * phase it does not list is unrecognised, a state's own name included. It is data, so the policy floor compiles it.
   */
  phases?: Readonly<Record<string, S>>;
  /**
   * A state reader of one's own, in place of the phase: the state of a stored object from what the operator writes
   * (`status.conditions`, `status.observedGeneration` against `metadata.generation`). It returns a state, `undefined`
   * when nothing is recorded yet (the initial state), or `{ unrecognised: 'what it read' }`, which fails closed as an
   * unknown phase does. It sees the old object in the hub version (a deletion is decided before it is asked), must
   * not throw (a reader that throws reads as unrecognised), and is code: the policy floor does not compile it. It
   * takes the place of phasePath and phases, which a machine with a reader leaves out.
   */
  readState?: StateReader<S>;
  /**
   * The state read from `status.conditions` and `status.observedGeneration`, as data, in place of phasePath and
   * readState: rules read in order, the first whose every test holds naming the state (or that nothing is recorded
   * yet); when none holds, the state is unrecognised and fails closed. Being data, the policy floor compiles it.
   */
  conditionStates?: readonly ConditionStateRule<S>[];
  /** Every kind of change the classifiers can report, in the order diagrams list them. */
  changeKinds: Readonly<Record<C, ChangeKind>>;
  rules: Readonly<Record<S, StateRule<S, C>>>;
  /**
   * The annotation (`<group>/override-transitions: "<reason>"`) with which a person pushes a supported change
   * through a state that forbids it. Its name part doubles as the audit annotation key.
   */
  overrideAnnotation: string;
  /** Turn an old and a new spec into the changes between them. */
  classifiers: readonly Classifier<C>[];
  /**
   * What a spec change that no classifier reports (a field no change kind names) meets in a state whose rule does
   * not say: `allowed` (the default, and what a state that allows any change always does), `refused`, or
   * `refused-unless-overridden` (by the override annotation, as a change the state does not allow). Data, so that a
   * contract made with fromCrd sets it without code and the policy floor compiles it.
   */
  unclassifiedChanges?: UnclassifiedChanges;
}

/** See Fsa.unclassifiedChanges. */
export type UnclassifiedChanges = 'allowed' | 'refused' | 'refused-unless-overridden';

/** One rule of Fsa.conditionStates: when every test holds, the state (or nothing recorded yet). */
export interface ConditionStateRule<S extends string> {
  /** Tests of the stored object's status, all of which must hold; an empty list always holds. */
  when: readonly StatusTest[];
  /** The state the rule names. */
  state?: S;
  /**
   * Instead of a state: the operator has recorded nothing yet, which reads as initialState (as a readState that
   * returns undefined), and for which `crdgate check --old` assumes its state.
   */
  nothingRecorded?: true;
}

/**
 * A test of the stored object's status. `{ condition, status?, reason? }` holds when `status.conditions` has a
 * condition (an object) of that type, with that status and reason when they are given; `{ condition, absent: true }`
 * when it has none of that type. `{ observedGeneration: 'behind' }` holds when `status.observedGeneration` is an
 * integer below `metadata.generation` (the operator has not seen the latest spec), `'current'` when it is one at
 * or above it.
 */
export type StatusTest =
  | { condition: string; status?: string; reason?: string; absent?: undefined }
  | { condition: string; absent: true }
  | { observedGeneration: 'behind' | 'current' };

/** See Fsa.readState. */
export type StateReader<S extends string> = (object: KubeObject) => S | undefined | { unrecognised: string };

export interface ChangeKind {
  /**
   * How a message names one change of this kind; `{from}`, `{to}` and `{item}` are replaced by the change's values,
   * e.g. `minor upgrade {from} -> {to}` or `adding cache "{item}"`.
   */
  description: string;
  /** Why the change is never possible once something exists; only a state that allows any change lets it through. */
  unsupported?: string;
  /**
   * Why every change of this kind needs a person's reason: no state allows it, and the override annotation with a
   * reason lets it through in any state (a state that allows any change lets it through without one, as it does an
   * unsupported change: nothing exists yet). For a change the operator can carry out but that costs something no rule
   * can weigh (a restore from a backup, a switch of the primary): the person's reason is the point.
   */
  overrideOnly?: string;
  /** A disruptive change that may not share an update with another exclusive change. */
  exclusive?: boolean;
}

export interface StateRule<S extends string, C extends string> {
  /** Nothing exists yet for a change to break: every change is allowed, unsupported ones included, and the state stays. */
  anyChange?: boolean;
  /** Allowed kinds of change, grouped by the state the operator is expected to move to. */
  allow?: readonly AllowedChanges<S, C>[];
  /** Moves the operator makes on its own (provisioning done, a failure); they make states reachable. */
  operatorMoves?: readonly S[];
  /** What a spec change no classifier reports meets in this state; the machine's unclassifiedChanges when absent. */
  unclassifiedChanges?: UnclassifiedChanges;
}

export interface AllowedChanges<S extends string, C extends string> {
  changes: readonly C[];
  /** The state the operator is expected to move to; absent means the object stays where it is. */
  next?: S;
}

/** One change between an old and a new spec. One update may carry several. */
export interface Change<C extends string> {
  kind: C;
  /** Kubernetes-style path of the changed field: `spec.caches[1].memory`. */
  field: string;
  /** The old value as shown to people; absent when the field was absent. */
  from?: string;
  /** The new value as shown to people; absent when the field is removed. */
  to?: string;
  /** The name of the list item the change is about (a cache), when it is about one. */
  item?: string;
  /**
   * Set when the classifier cannot tell which change this is (a reader said cannotRead): why. The change is then
   * refused as undecidable unless the state allows any change or the override gives a reason; `kind` is only the
   * first of the classifier's kinds.
   */
  undecidable?: string;
}

/** Where the values a classifier compares sit in the object, so the changes it reports can name their field. */
export interface Location {
  /** Kubernetes-style path of the compared values: `spec`, or `spec.caches[1]` for a list item. */
  field: string;
  /** The name of the list item being compared, if any. */
  item?: string;
}

export interface Classifier<C extends string> {
  /** Every kind `classify` can report, so the self-check can tell which change kinds are never produced. */
  kinds: readonly C[];
  /**
   * What the classifier compares, as data, when it is built from the library's parts only: the policy compiler
   * turns it into CEL the API server enforces. A classifier written as a function has none; the webhook alone
   * enforces its kinds.
   */
  form?: ClassifierForm<C>;
  /**
   * Where the classifier looks, whatever its reader: the library's classifiers always say. The machine's self-check
   * holds it against the hub's schema (a path the schema lacks, a reader or key of a type the schema's cannot hold),
   * and it tells which spec fields the classifiers cover. A classifier written as a function may say it too.
   */
  target?: ClassifierTarget;
  /**
   * The changes between an old and a new value at `at`. Both are untrusted JSON: the classifier must not throw,
   * and leaves values it cannot read to schema validation, which runs in the same request.
   */
  classify(oldValue: unknown, newValue: unknown, at: Location): Change<C>[];
}

/** What a change kind's description may name, each filled from the change (`{from} -> {to}`). */
export const changePlaceholders = ['from', 'to', 'item'] as const;
