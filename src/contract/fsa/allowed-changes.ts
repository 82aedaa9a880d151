import type { TransitionMachine } from './machine.ts';

/**
 * Where an allowed change of `kind` takes an object in `state`: the group's `next`, or `state` itself when the
 * group names none or the state allows any change; undefined when the state does not allow the change.
 */
export function nextStateAfter<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
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
export function statesAllowing<S extends string, C extends string>(machine: TransitionMachine<S, C>, kind: C): S[] {
  return machine.states.filter((state) => machine.rules[state]?.allow?.some((group) => group.changes.includes(kind)));
}
