import type { Change, Fsa } from '../machine.ts';
import type { StateReading } from '../phase.ts';
import { unclassifiedChangesFor } from '../unclassified-setting.ts';
import type { UnclassifiedChangesFound } from '../unclassified-changes.ts';

// Judging each change in the state an update starts from: which states allow a change, and where it takes the object.

/** The machine's ruling on one change, judged in the state the update starts from. */
export type ChangeRuling<S extends string, C extends string> =
  | { outcome: 'allowed'; nextState: S }
  /** Not allowed in this state, let through by the override annotation. */
  | { outcome: 'overridden'; allowedIn: readonly S[] }
  | { outcome: 'not-allowed'; allowedIn: readonly S[] }
  | { outcome: 'unsupported'; reason: string }
  /** A kind no state allows, that only a person's reason (the override) lets through: why it needs one. */
  | { outcome: 'override-only'; reason: string }
  /** The classifier could not tell which change it is (a reading that fails closed). */
  | { outcome: 'undecidable'; reason: string }
  /** Would pass on its own, but shares the update with other exclusive changes. */
  | { outcome: 'exclusive-conflict'; conflictsWith: readonly Change<C>[] };

export interface JudgedChange<S extends string, C extends string> {
  change: Change<C>;
  ruling: ChangeRuling<S, C>;
}

/**
 * Judges every change of one update. Each change is judged on its own (a major upgrade next to a scale-out denies
 * the upgrade, not the scale-out), then exclusive changes that would pass are checked against each other.
 *
 * The override lifts only "not allowed in this state" (and a kind that is override-only, which no state allows): it
 * is a person vouching that the operator can cope right now. It never lifts an unsupported change (no state of the operator can carry it out) nor an exclusive conflict
 * (splitting the update in two costs nothing and keeps each disruption on its own).
 *
 * A state that allows any change has nothing provisioned to disrupt, so exclusivity does not apply there either.
 */
export function judgeChanges<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: StateReading<S>,
  changes: readonly Change<C>[],
  overriding: boolean,
): JudgedChange<S, C>[] {
  const judged = changes.map((change) => ({ change, ruling: judgeAlone(machine, state, change, overriding) }));
  if (state.recognised && machine.rules[state.state]?.anyChange) return judged;
  const exclusive = judged.filter(
    ({ change, ruling }) =>
      passes(ruling) && change.undecidable === undefined && machine.changeKinds[change.kind]?.exclusive === true,
  );
  if (exclusive.length < 2) return judged;
  return judged.map((entry) =>
    exclusive.includes(entry)
      ? {
          change: entry.change,
          ruling: {
            outcome: 'exclusive-conflict',
            conflictsWith: exclusive.filter((other) => other !== entry).map((other) => other.change),
          },
        }
      : entry,
  );
}

function passes<S extends string, C extends string>(ruling: ChangeRuling<S, C>): boolean {
  return ruling.outcome === 'allowed' || ruling.outcome === 'overridden';
}

function judgeAlone<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: StateReading<S>,
  change: Change<C>,
  overriding: boolean,
): ChangeRuling<S, C> {
  if (state.recognised && machine.rules[state.state]?.anyChange) {
    return { outcome: 'allowed', nextState: nextStateAfter(machine, state.state, change.kind) ?? state.state };
  }
  // Which change it is cannot be told, so neither can whether the state allows it: only a person can say.
  if (change.undecidable !== undefined)
    return overriding
      ? { outcome: 'overridden', allowedIn: [] }
      : { outcome: 'undecidable', reason: change.undecidable };
  const reason = machine.changeKinds[change.kind]?.unsupported;
  if (reason !== undefined) return { outcome: 'unsupported', reason };
  const overrideOnly = machine.changeKinds[change.kind]?.overrideOnly;
  if (overrideOnly !== undefined)
    return overriding ? { outcome: 'overridden', allowedIn: [] } : { outcome: 'override-only', reason: overrideOnly };
  const nextState = state.recognised ? nextStateAfter(machine, state.state, change.kind) : undefined;
  if (nextState !== undefined) return { outcome: 'allowed', nextState };
  const allowedIn = statesAllowing(machine, change.kind);
  return overriding ? { outcome: 'overridden', allowedIn } : { outcome: 'not-allowed', allowedIn };
}

/**
 * Where an allowed change of `kind` takes an object in `state`: the group's `next`, or `state` itself when the
 * group names none or the state allows any change; undefined when the state does not allow the change.
 */
export function nextStateAfter<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: S,
  kind: C,
): S | undefined {
  const rule = machine.rules[state];
  if (rule === undefined) return undefined;
  const group = rule.allow?.find((allowed) => allowed.changes.includes(kind));
  if (group !== undefined) return group.next ?? state;
  return rule.anyChange ? state : undefined;
}

/**
 * The states whose rules name `kind`, in the machine's order. States that allow any change are left out: they
 * allow it only because nothing exists yet, which is no advice to someone whose object is past that.
 */
export function statesAllowing<S extends string, C extends string>(machine: Fsa<S, C>, kind: C): S[] {
  return machine.states.filter((state) => machine.rules[state]?.allow?.some((group) => group.changes.includes(kind)));
}

/**
 * The ruling on the spec changes no classifier names, one for all of an update's: they share its state and its
 * override. As a change the state does not allow, `refused-unless-overridden` is lifted by the override; `refused`
 * never is. A state that allows any change allows them, and an unrecognised phase reads as unclassifiedChangesFor says.
 */
export type UnclassifiedRuling =
  { outcome: 'allowed' } | { outcome: 'overridden' } | { outcome: 'not-allowed' } | { outcome: 'refused' };

/** The changes of an update that no classifier names, with the ruling they share. */
export interface JudgedUnclassifiedChanges extends UnclassifiedChangesFound {
  ruling: UnclassifiedRuling;
}

export function judgeUnclassified<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: StateReading<S>,
  overriding: boolean,
): UnclassifiedRuling {
  switch (unclassifiedChangesFor(machine, state)) {
    case 'allowed':
      return { outcome: 'allowed' };
    case 'refused':
      return { outcome: 'refused' };
    case 'refused-unless-overridden':
      return overriding ? { outcome: 'overridden' } : { outcome: 'not-allowed' };
  }
}
