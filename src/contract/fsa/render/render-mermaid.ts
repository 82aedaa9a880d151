import {
  diagramRemarks,
  exclusiveLegend,
  operatorMoveLabel,
  overrideOnlyLegend,
  unclassifiedLegend,
  unsupportedLegend,
} from './machine-legend.ts';
import { machineEdges } from '../machine-graph.ts';
import type { Fsa } from '../machine.ts';

/**
 * A Mermaid `stateDiagram-v2`. Mermaid draws every transition alike, so the operator's own moves are told apart
 * by their label. Unsupported changes are listed in a note on the states that allow any change, since those are
 * the only places they can happen.
 */
export function renderMermaid<S extends string, C extends string>(machine: Fsa<S, C>): string {
  const lines = [
    'stateDiagram-v2',
    `    %% ${machine.name}: allowed spec changes per state; ${operatorMoveLabel} marks the operator's own moves`,
    `    [*] --> ${machine.initialState}`,
    ...machineEdges(machine).map(
      (edge) =>
        `    ${edge.from} --> ${edge.to}: ${edge.cause === 'change' ? edge.kinds.join(', ') : operatorMoveLabel}`,
    ),
    ...machine.terminalStates.map((state) => `    ${state} --> [*]`),
    ...machine.states.flatMap((state) => note(state, notesFor(machine, state))),
  ];
  lines.push(
    ...[...overrideOnlyLegend(machine), ...exclusiveLegend(machine), ...unclassifiedLegend(machine)].map(
      (line) => `    %% ${line}`,
    ),
  );
  if (!machine.states.some((state) => machine.rules[state]?.anyChange)) {
    lines.push(...unsupportedLegend(machine).map((line) => `    %% ${line}`));
  }
  return `${lines.join('\n')}\n`;
}

function notesFor<S extends string, C extends string>(machine: Fsa<S, C>, state: S): string[] {
  const remarks = diagramRemarks(machine, state);
  return machine.rules[state]?.anyChange ? [...remarks, ...unsupportedLegend(machine)] : remarks;
}

function note(state: string, lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  return [`    note right of ${state}`, ...lines.map((line) => `        ${line}`), '    end note'];
}
