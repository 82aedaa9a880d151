import type { Fsa } from './machine.ts';

/**
 * A move between states: the spec changes that lead from one state to another (grouped, so one edge carries
 * every kind with the same ends), or a move the operator makes on its own.
 */
export type MachineEdge<S extends string, C extends string> =
  { cause: 'change'; from: S; to: S; kinds: C[] } | { cause: 'operator'; from: S; to: S };

/**
 * Every edge the rules declare, in the machine's state order, change edges before operator moves. Self-loops
 * (changes after which the object stays) are included; moves into the deleting state are not, since deletion
 * can start anywhere and is no rule of any one state.
 */
export function machineEdges<S extends string, C extends string>(machine: Fsa<S, C>): MachineEdge<S, C>[] {
  return machine.states.flatMap((from) => {
    const rule = machine.rules[from];
    if (rule === undefined) return [];
    const changeEdges = new Map<S, C[]>();
    for (const group of rule.allow ?? []) {
      const to = group.next ?? from;
      changeEdges.set(to, [...(changeEdges.get(to) ?? []), ...group.changes]);
    }
    return [
      ...[...changeEdges].map(([to, kinds]): MachineEdge<S, C> => ({ cause: 'change', from, to, kinds })),
      ...(rule.operatorMoves ?? []).map((to): MachineEdge<S, C> => ({ cause: 'operator', from, to })),
    ];
  });
}

/** The states directly reachable from `state` through its edges, excluding itself. */
export function exitsOf<S extends string, C extends string>(edges: readonly MachineEdge<S, C>[], state: S): S[] {
  return [...new Set(edges.filter((edge) => edge.from === state && edge.to !== state).map((edge) => edge.to))];
}
