import type { Fsa, UnclassifiedChanges } from '../machine.ts';
import {
  judgesUnclassifiedChanges,
  unclassifiedChangesIn,
  unclassifiedChangesInUnrecognisedPhase,
} from '../unclassified-setting.ts';

// The words every rendering of a machine shares, so a diagram and a table never describe the same machine differently.

export const anyChangeRemark = 'any change, including the unsupported ones';

export const operatorMoveLabel = '(operator)';

/** What a diagram shows next to a state, where there are no edges to say that it allows any change. */
export function diagramRemarks<S extends string, C extends string>(machine: Fsa<S, C>, state: S): string[] {
  const remarks = stateRemarks(machine, state);
  return machine.rules[state]?.anyChange ? [anyChangeRemark, ...remarks] : remarks;
}

/** What a rendering notes about a state beyond its edges and whether it allows any change. */
export function stateRemarks<S extends string, C extends string>(machine: Fsa<S, C>, state: S): string[] {
  const remarks: string[] = [];
  if (machine.humanInterventionStates.includes(state)) remarks.push('human intervention');
  if (machine.terminalStates.includes(state)) remarks.push('terminal');
  if (state === machine.deletingState) remarks.push('entered from any state once deletion starts');
  const unclassified = unclassifiedChangesIn(machine, state);
  if (unclassified !== 'allowed') remarks.push(`${unclassifiedHeading}: ${unclassifiedWords[unclassified]}`);
  return remarks;
}

const unclassifiedHeading = 'changes no change kind names';
const unclassifiedWords: Record<UnclassifiedChanges, string> = {
  allowed: 'allowed',
  refused: 'refused',
  'refused-unless-overridden': 'refused unless overridden',
};

/**
 * What every state does with a change no classifier names, in one line, even when all allow it: that such a change
 * passes is the first thing a reader of the machine should not have to guess.
 */
export function unclassifiedLegend<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  if (!judgesUnclassifiedChanges(machine)) return [`${unclassifiedHeading}: allowed in every state`];
  const unrecognised = unclassifiedChangesInUnrecognisedPhase(machine);
  const groups = (['refused', 'refused-unless-overridden', 'allowed'] as const).flatMap((setting) => {
    const states: string[] = machine.states.filter((state) => unclassifiedChangesIn(machine, state) === setting);
    if (unrecognised === setting) states.push('an unrecognised phase');
    return states.length === 0 ? [] : [`${unclassifiedWords[setting]} in ${states.join(', ')}`];
  });
  return [`${unclassifiedHeading}: ${groups.join('; ')}`];
}

export function unsupportedChanges<S extends string, C extends string>(
  machine: Fsa<S, C>,
): { kind: C; reason: string }[] {
  return (Object.entries(machine.changeKinds) as [C, Fsa<S, C>['changeKinds'][C]][]).flatMap(([kind, definition]) =>
    definition.unsupported === undefined ? [] : [{ kind, reason: definition.unsupported }],
  );
}

export function exclusiveChanges<S extends string, C extends string>(machine: Fsa<S, C>): C[] {
  return (Object.keys(machine.changeKinds) as C[]).filter((kind) => machine.changeKinds[kind].exclusive === true);
}

/** Heading of the list of unsupported changes: they are possible only where any change is. */
export function unsupportedHeading<S extends string, C extends string>(machine: Fsa<S, C>): string {
  const anywhere = machine.states.filter((state) => machine.rules[state]?.anyChange);
  return anywhere.length > 0 ? `unsupported (allowed only in ${anywhere.join(', ')})` : 'unsupported (never allowed)';
}

/** The unsupported changes with their reasons under their heading, one line each; empty when there are none. */
export function unsupportedLegend<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const unsupported = unsupportedChanges(machine);
  return unsupported.length === 0
    ? []
    : [`${unsupportedHeading(machine)}:`, ...unsupported.map(({ kind, reason }) => `${kind}: ${reason}`)];
}

/**
 * The override-only changes with why each needs a person's reason, under a heading naming the annotation; empty when
 * there are none. They are on no edge: no state allows them.
 */
export function overrideOnlyLegend<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const kinds = (Object.entries(machine.changeKinds) as [C, Fsa<S, C>['changeKinds'][C]][]).flatMap(
    ([kind, definition]) => (definition.overrideOnly === undefined ? [] : [`${kind}: ${definition.overrideOnly}`]),
  );
  if (kinds.length === 0) return [];
  const anywhere = machine.states.filter((state) => machine.rules[state]?.anyChange);
  const where = anywhere.length > 0 ? `in every state but ${anywhere.join(', ')}` : 'in every state';
  return [`only with a reason in ${machine.overrideAnnotation} (${where}):`, ...kinds];
}

/** The exclusive changes in one line; empty when there are none. */
export function exclusiveLegend<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const exclusive = exclusiveChanges(machine);
  return exclusive.length === 0 ? [] : [`exclusive (at most one per update): ${exclusive.join(', ')}`];
}
