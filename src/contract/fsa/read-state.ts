import { describeValue } from '../schema/describe-value.ts';
import type { KubeObject } from '../kube-object.ts';
import type { TransitionMachine } from './machine.ts';
import { valueAtPath } from '../field-path.ts';

/**
 * The state an update starts from. A phase the machine does not know (an operator newer than crdgate, junk)
 * is kept apart rather than guessed at: such a state allows no change without an override.
 */
export type StateReading<S extends string> =
  | { recognised: true; state: S }
  | { recognised: false; phase: string };

/** The state of the stored object: deleting once a deletion has started, otherwise what its phase says. */
export function readState<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  oldObject: KubeObject,
): StateReading<S> {
  const deletionTimestamp = valueAtPath(oldObject, 'metadata.deletionTimestamp');
  if (deletionTimestamp !== undefined && deletionTimestamp !== null) return { recognised: true, state: machine.deletingState };
  return readPhase(machine, valueAtPath(oldObject, machine.phasePath));
}

/**
 * A recorded phase as a state. Absent, null and "" (a Go operator's zero value) all mean nothing has been
 * recorded yet, which is the initial state.
 */
export function readPhase<S extends string, C extends string>(machine: TransitionMachine<S, C>, phase: unknown): StateReading<S> {
  if (phase === undefined || phase === null || phase === '') return { recognised: true, state: machine.initialState };
  const state = machine.states.find((name) => name === phase);
  return state === undefined ? { recognised: false, phase: describeValue(phase) } : { recognised: true, state };
}
