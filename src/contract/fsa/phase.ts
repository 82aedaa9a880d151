import { describeText, describeValue } from '../values/describe-value.ts';
import type { KubeObject } from '../values/kube-object.ts';
import type { StateReader, Fsa } from './machine.ts';
import { valueAtPath } from '../values/field-path.ts';
import { exitsOf, machineEdges } from './machine-graph.ts';
import { conditionStatesReader } from './condition-states.ts';

// Reading the machine's state from an object's phase, and checking an operator's phase moves against the machine.

/**
 * The state an update starts from. A phase the machine does not know (an operator newer than crdgate, junk)
 * is kept apart rather than guessed at: such a state allows no change without an override.
 */
export type StateReading<S extends string> = { recognised: true; state: S } | { recognised: false; phase: string };

/**
 * The state of the stored object: what it records (see recordedState), else `assumed`, else the initial state.
 * The webhook never assumes: the API server's stored object records what the operator wrote, and a stored object
 * that records nothing yet has just been created. `crdgate check --old` assumes a state for a previous revision's
 * manifest, which seldom carries a status (`--state`, or the machine's steadyState).
 */
export function readState<S extends string, C extends string>(
  machine: Fsa<S, C>,
  oldObject: KubeObject,
  assumed?: S,
): StateReading<S> {
  return recordedState(machine, oldObject) ?? { recognised: true, state: assumed ?? machine.initialState };
}

/**
 * The state an object records: deleting once a deletion has started, otherwise its phase (through the machine's
 * phase table, when it has one), or what the machine's state reader or its conditionStates rules say. Undefined
 * when it records none yet: no phase (absent, null, or "", a Go operator's zero value), a state reader that returns
 * undefined, or a conditionStates rule that says nothing is recorded.
 */
export function recordedState<S extends string, C extends string>(
  machine: Fsa<S, C>,
  object: KubeObject,
): StateReading<S> | undefined {
  const deletionTimestamp = valueAtPath(object, 'metadata.deletionTimestamp');
  if (deletionTimestamp !== undefined && deletionTimestamp !== null)
    return { recognised: true, state: machine.deletingState };
  if (readsPhase(machine)) return recordedPhase(machine, valueAtPath(object, machine.phasePath));
  if (machine.readState !== undefined) return readWithReader(machine, machine.readState, object);
  if (machine.conditionStates !== undefined)
    return readWithReader(machine, conditionStatesReader(machine.conditionStates), object);
  // No machine that passed its self-check gets here: it reads its state one way or the other.
  return { recognised: false, phase: '(the machine has neither phasePath nor readState)' };
}

/** Whether the machine reads the state from the phase at phasePath, rather than from its conditions or with a reader of its own. */
export function readsPhase<S extends string, C extends string>(
  machine: Fsa<S, C>,
): machine is Fsa<S, C> & { phasePath: string } {
  return machine.readState === undefined && machine.conditionStates === undefined && machine.phasePath !== undefined;
}

/** A recorded phase as a state; nothing recorded yet is the initial state. */
export function readPhase<S extends string, C extends string>(machine: Fsa<S, C>, phase: unknown): StateReading<S> {
  return recordedPhase(machine, phase) ?? { recognised: true, state: machine.initialState };
}

function recordedPhase<S extends string, C extends string>(
  machine: Fsa<S, C>,
  phase: unknown,
): StateReading<S> | undefined {
  if (phase === undefined || phase === null || phase === '') return undefined;
  const state =
    machine.phases === undefined
      ? machine.states.find((name) => name === phase)
      : // Own properties only: a phase such as "constructor" must not read Object.prototype's.
        typeof phase === 'string' && Object.hasOwn(machine.phases, phase)
        ? machine.phases[phase]
        : undefined;
  return state === undefined || !machine.states.includes(state)
    ? { recognised: false, phase: describeValue(phase) }
    : { recognised: true, state };
}

function readWithReader<S extends string, C extends string>(
  machine: Fsa<S, C>,
  reader: StateReader<S>,
  object: KubeObject,
): StateReading<S> | undefined {
  let read: ReturnType<StateReader<S>>;
  try {
    read = reader(object);
  } catch (error) {
    return {
      recognised: false,
      phase: `(the state reader failed: ${describeText(error instanceof Error ? error.message : String(error))})`,
    };
  }
  if (read === undefined) return undefined;
  if (typeof read === 'string' && machine.states.includes(read)) return { recognised: true, state: read };
  const what =
    typeof read === 'object' && read !== null && typeof read.unrecognised === 'string'
      ? describeValue(read.unrecognised)
      : describeValue(read);
  return { recognised: false, phase: what };
}

export type PhaseMoveCheck = { expected: true } | { expected: false; message: string };

/**
 * Whether an operator's status.phase update is one of the machine's moves: staying put, one of its own moves,
 * or the next state of a change the state allows. An unexpected move is not refused (the operator knows what it
 * saw), but it is worth a warning: either the operator or the machine is wrong.
 */
export function checkPhaseMove<S extends string, C extends string>(
  machine: Fsa<S, C>,
  oldPhase: unknown,
  newPhase: unknown,
): PhaseMoveCheck {
  return checkStateMove(
    machine,
    readPhase(machine, oldPhase),
    readPhase(machine, newPhase),
    machine.phasePath ?? 'the phase',
  );
}

/**
 * checkPhaseMove for two readings of the state (the machine's state reader's, or the phase's). Staying in an
 * unrecognised phase, or leaving it for a state the machine knows, draws no warning: an operator writes its status
 * again and again, and the move into the phase was warned about once already, so a phase the machine does not know
 * draws one warning, not one per status write.
 */
export function checkStateMove<S extends string, C extends string>(
  machine: Fsa<S, C>,
  from: StateReading<S>,
  to: StateReading<S>,
  where: string,
): PhaseMoveCheck {
  if (!from.recognised && !to.recognised && from.phase === to.phase) return { expected: true };
  if (!to.recognised)
    return { expected: false, message: `${where}: ${to.phase} is not a state of the ${machine.name} machine` };
  // Out of a phase the machine does not know, into one it does: the move into it drew the warning already.
  if (!from.recognised) return { expected: true };
  if (from.state === to.state) return { expected: true };
  const exits = exitsOf(machineEdges(machine), from.state);
  if (exits.includes(to.state)) return { expected: true };
  const expected = exits.length > 0 ? exits.join(', ') : 'none';
  return {
    expected: false,
    message: `${where}: ${from.state} -> ${to.state} is not one of the machine's moves (from ${from.state}: ${expected})`,
  };
}
