import type { Fsa, UnclassifiedChanges } from './machine.ts';
import type { StateReading } from './phase.ts';

// What each state does with a spec change no classifier reports: read here alone, so that the webhook's decision,
// the diagrams and the policy floor never read the machine's setting differently.

export const unclassifiedChangesSettings = [
  'allowed',
  'refused',
  'refused-unless-overridden',
] as const satisfies readonly UnclassifiedChanges[];

/**
 * Allowed, unless the machine says otherwise: a contract names the changes the operator cannot carry out, and every
 * other field (labels, tuning, fields a new release of the operator adds) is the operator's to take as it comes.
 * Refusing by default would refuse each such field until a classifier names it, which no self-check can foresee.
 */
export const defaultUnclassifiedChanges: UnclassifiedChanges = 'allowed';

/** The setting in a state: allowed where any change is, else the state's own, else the machine's, else the default. */
export function unclassifiedChangesIn<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: S,
): UnclassifiedChanges {
  const rule = machine.rules[state];
  if (rule?.anyChange) return 'allowed';
  return rule?.unclassifiedChanges ?? machine.unclassifiedChanges ?? defaultUnclassifiedChanges;
}

/**
 * The setting in a phase the machine does not know, which could be any state that does not allow any change: refused
 * when every such state refuses them, allowed when every one allows them, and otherwise refused unless overridden,
 * as every classified change is there.
 */
export function unclassifiedChangesInUnrecognisedPhase<S extends string, C extends string>(
  machine: Fsa<S, C>,
): UnclassifiedChanges {
  const settings = new Set(
    machine.states
      .filter((state) => !machine.rules[state]?.anyChange)
      .map((state) => unclassifiedChangesIn(machine, state)),
  );
  if (settings.size === 0) return defaultUnclassifiedChanges;
  if (settings.size === 1) return [...settings][0]!;
  return 'refused-unless-overridden';
}

/** The setting for the state an update starts from. */
export function unclassifiedChangesFor<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: StateReading<S>,
): UnclassifiedChanges {
  return state.recognised
    ? unclassifiedChangesIn(machine, state.state)
    : unclassifiedChangesInUnrecognisedPhase(machine);
}

/** Whether some state refuses unclassified changes: only then is there anything to find, draw or compile. */
export function judgesUnclassifiedChanges<S extends string, C extends string>(machine: Fsa<S, C>): boolean {
  return machine.states.some((state) => unclassifiedChangesIn(machine, state) !== 'allowed');
}
