import { describeValue } from '../schema/describe-value.ts';
import type { KubeObject } from '../kube-object.ts';
import type { TransitionMachine } from './machine.ts';
import { valueAtPath } from '../field-path.ts';
import { exitsOf, machineEdges } from './machine-graph.ts';

// Reading the machine's state from an object's phase, and checking an operator's phase moves against the machine.

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

export type PhaseMoveCheck = { expected: true } | { expected: false; message: string };

/**
 * Whether an operator's status.phase update is one of the machine's moves: staying put, one of its own moves,
 * or the next state of a change the state allows. An unexpected move is not refused (the operator knows what it
 * saw), but it is worth a warning: either the operator or the machine is wrong.
 */
export function checkPhaseMove<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  oldPhase: unknown,
  newPhase: unknown,
): PhaseMoveCheck {
  const from = readPhase(machine, oldPhase);
  const to = readPhase(machine, newPhase);
  if (!to.recognised) return { expected: false, message: `status.phase: ${to.phase} is not a state of the ${machine.name} machine` };
  if (!from.recognised) return { expected: false, message: `status.phase: ${from.phase} is not a state of the ${machine.name} machine` };
  if (from.state === to.state) return { expected: true };
  const exits = exitsOf(machineEdges(machine), from.state);
  if (exits.includes(to.state)) return { expected: true };
  const expected = exits.length > 0 ? exits.join(', ') : 'none';
  return {
    expected: false,
    message: `status.phase: ${from.state} -> ${to.state} is not one of the machine's moves (from ${from.state}: ${expected})`,
  };
}
