import { exitsOf, machineEdges } from './machine-graph.ts';
import type { TransitionMachine } from './machine.ts';
import { readPhase } from './read-state.ts';

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
