import { describe, expect, it } from 'vitest';
import { exitsOf, machineEdges } from './machine-graph.ts';
import { toyMachine } from './toy-machine.fixture.ts';

describe('machineEdges', () => {
  it('groups the changes with the same ends into one edge and lists operator moves apart', () => {
    expect(machineEdges(toyMachine).filter((edge) => edge.from === 'Active')).toEqual([
      { cause: 'change', from: 'Active', to: 'Busy', kinds: ['size.up', 'color'] },
      { cause: 'change', from: 'Active', to: 'Active', kinds: ['label'] },
      { cause: 'operator', from: 'Active', to: 'Broken' },
    ]);
  });

  it('merges groups that lead to the same state', () => {
    const split = {
      ...toyMachine,
      rules: {
        ...toyMachine.rules,
        Active: {
          allow: [
            { changes: ['size.up' as const], next: 'Busy' as const },
            { changes: ['color' as const], next: 'Busy' as const },
          ],
        },
      },
    };
    expect(machineEdges(split).filter((edge) => edge.from === 'Active')).toEqual([
      { cause: 'change', from: 'Active', to: 'Busy', kinds: ['size.up', 'color'] },
    ]);
  });
});

describe('exitsOf', () => {
  it('lists the other states an edge leads to, once each', () => {
    const edges = machineEdges(toyMachine);
    expect(exitsOf(edges, 'Active')).toEqual(['Busy', 'Broken']);
    expect(exitsOf(edges, 'Broken')).toEqual([]);
  });
});
