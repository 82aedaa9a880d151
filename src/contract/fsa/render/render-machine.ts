import type { Fsa } from '../machine.ts';
import { renderDot } from './render-dot.ts';
import { renderMermaid } from './render-mermaid.ts';
import { renderTable } from './render-table.ts';

export const machineFormats = ['mermaid', 'dot', 'table'] as const;
export type MachineFormat = (typeof machineFormats)[number];

/** The machine as a diagram or table; the same machine always renders to the same text. */
export function renderMachine<S extends string, C extends string>(machine: Fsa<S, C>, format: MachineFormat): string {
  switch (format) {
    case 'mermaid':
      return renderMermaid(machine);
    case 'dot':
      return renderDot(machine);
    case 'table':
      return renderTable(machine);
  }
}
