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

/** A Graphviz digraph: operator moves dashed, terminal states doubled, unsupported changes in a note. */
export function renderDot<S extends string, C extends string>(machine: Fsa<S, C>): string {
  const lines = [
    `digraph ${quote(machine.name)} {`,
    '    rankdir=LR;',
    '    node [shape=box, style=rounded];',
    '    __start [shape=point, label=""];',
    ...machine.states.map((state) => `    ${quote(state)} [${stateAttributes(machine, state)}];`),
    `    __start -> ${quote(machine.initialState)};`,
    ...machineEdges(machine).map((edge) =>
      edge.cause === 'change'
        ? `    ${quote(edge.from)} -> ${quote(edge.to)} [label=${centredLabel(edge.kinds)}];`
        : `    ${quote(edge.from)} -> ${quote(edge.to)} [label=${quote(operatorMoveLabel)}, style=dashed];`,
    ),
  ];
  const legend = [
    ...unsupportedLegend(machine),
    ...overrideOnlyLegend(machine),
    ...exclusiveLegend(machine),
    ...unclassifiedLegend(machine),
  ];
  lines.push(`    __legend [shape=note, label=${leftAlignedLabel(legend)}];`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function stateAttributes<S extends string, C extends string>(machine: Fsa<S, C>, state: S): string {
  const attributes = [`label=${centredLabel([state, ...diagramRemarks(machine, state)])}`];
  if (machine.terminalStates.includes(state)) attributes.push('peripheries=2');
  return attributes.join(', ');
}

function quote(text: string): string {
  return `"${escape(text)}"`;
}

/** A centred multi-line label. */
function centredLabel(texts: readonly string[]): string {
  return `"${texts.map(escape).join('\\n')}"`;
}

/** A multi-line label with every line left-aligned (DOT's `\l` ends a left-aligned line). */
function leftAlignedLabel(texts: readonly string[]): string {
  return `"${texts.map((text) => `${escape(text)}\\l`).join('')}"`;
}

function escape(text: string): string {
  return text.replace(/["\\]/g, '\\$&');
}
