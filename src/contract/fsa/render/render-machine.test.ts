import { describe, expect, it } from 'vitest';
import type { Fsa } from '../machine.ts';
import { machineFormats, renderMachine } from './render-machine.ts';
import { toyMachine, toyOverrideOnlyMachine, type ToyChange, type ToyState } from '../toy-machine.fixture.ts';

describe('renderMachine', () => {
  it('draws a Mermaid state diagram with grouped change edges, labelled operator moves and notes', () => {
    expect(renderMachine(toyMachine, 'mermaid')).toBe(
      [
        'stateDiagram-v2',
        "    %% Widget: allowed spec changes per state; (operator) marks the operator's own moves",
        '    [*] --> Draft',
        '    Draft --> Active: (operator)',
        '    Draft --> Broken: (operator)',
        '    Active --> Busy: size.up, color',
        '    Active --> Active: label',
        '    Active --> Broken: (operator)',
        '    Busy --> Busy: label',
        '    Busy --> Active: (operator)',
        '    Busy --> Broken: (operator)',
        '    Gone --> [*]',
        '    note right of Draft',
        '        any change, including the unsupported ones',
        '        unsupported (allowed only in Draft):',
        '        size.down: widgets cannot shrink',
        '    end note',
        '    note right of Broken',
        '        human intervention',
        '    end note',
        '    note right of Gone',
        '        terminal',
        '        entered from any state once deletion starts',
        '    end note',
        '    %% exclusive (at most one per update): size.up, color',
        '    %% changes no change kind names: allowed in every state',
        '',
      ].join('\n'),
    );
  });

  it('draws a DOT graph with dashed operator moves, a doubled terminal state and a legend', () => {
    const dot = renderMachine(toyMachine, 'dot');
    expect(dot).toMatch(/^digraph "Widget" \{\n/);
    expect(dot).toContain('    __start -> "Draft";');
    expect(dot).toContain('    "Active" -> "Busy" [label="size.up\\ncolor"];');
    expect(dot).toContain('    "Busy" -> "Active" [label="(operator)", style=dashed];');
    expect(dot).toContain(
      '"Gone" [label="Gone\\nterminal\\nentered from any state once deletion starts", peripheries=2];',
    );
    expect(dot).toContain('size.down: widgets cannot shrink\\l');
    expect(dot).toMatch(/\}\n$/);
  });

  it('writes a table of states and allowed changes, with the unsupported and exclusive changes below it', () => {
    expect(renderMachine(toyMachine, 'table')).toBe(
      [
        '| state | allowed changes (-> expected next state) | operator moves |',
        '|---|---|---|',
        '| Draft | any change, including the unsupported ones | Active, Broken |',
        '| Active | size.up, color -> Busy; label (stay) | Broken |',
        '| Busy | label (stay) | Active, Broken |',
        '| Broken | none (human intervention) | none |',
        '| Gone | none (terminal; entered from any state once deletion starts) | none |',
        '',
        'unsupported (allowed only in Draft):',
        '- size.down: widgets cannot shrink',
        '',
        'exclusive (at most one per update): size.up, color',
        '',
        'changes no change kind names: allowed in every state',
        '',
      ].join('\n'),
    );
  });

  it.each(machineFormats)('renders %s the same way every time', (format) => {
    const copy: Fsa<ToyState, ToyChange> = {
      ...toyMachine,
      rules: { ...toyMachine.rules },
      states: [...toyMachine.states],
    };
    expect(renderMachine(copy, format)).toBe(renderMachine(toyMachine, format));
  });

  it('escapes what DOT and Markdown would misread', () => {
    const awkward = {
      ...toyMachine,
      changeKinds: {
        ...toyMachine.changeKinds,
        'size.down': { description: 'x', unsupported: 'a "quoted" | piped \\ reason' },
      },
    };
    expect(renderMachine(awkward, 'dot')).toContain('a \\"quoted\\" | piped \\\\ reason');
    const piped = {
      ...toyMachine,
      rules: { ...toyMachine.rules, Busy: { allow: [{ changes: ['label', 'a|b'] as ToyChange[] }] } },
    };
    expect(renderMachine(piped, 'table')).toContain('| Busy | label, a\\|b (stay) | none |');
  });

  it('lists unsupported changes as comments when no state allows any change', () => {
    const strict = {
      ...toyMachine,
      rules: { ...toyMachine.rules, Draft: { operatorMoves: ['Active', 'Broken'] as ToyState[] } },
    };
    const mermaid = renderMachine(strict, 'mermaid');
    expect(mermaid).toContain('    %% unsupported (never allowed):');
    expect(mermaid).toContain('    %% size.down: widgets cannot shrink');
  });
});

describe('renderMachine: override-only changes', () => {
  it('lists them with their reasons under the annotation that lets them through, in each format', () => {
    const heading = 'only with a reason in toy.example.com/override-transitions (in every state but Draft):';
    const mermaid = renderMachine(toyOverrideOnlyMachine, 'mermaid');
    expect(mermaid).toContain(`    %% ${heading}\n    %% color: the paint shop closes\n`);
    // On no edge: no state allows it.
    expect(mermaid).not.toMatch(/-->.*color/);
    expect(renderMachine(toyOverrideOnlyMachine, 'table')).toContain(`${heading}\n- color: the paint shop closes\n`);
    expect(renderMachine(toyOverrideOnlyMachine, 'dot')).toContain(`${heading}\\lcolor: the paint shop closes\\l`);
    expect(renderMachine(toyMachine, 'table')).not.toContain('only with a reason');
  });
});

describe('renderMachine: changes no change kind names', () => {
  const strict: Fsa<ToyState, ToyChange> = {
    ...toyMachine,
    unclassifiedChanges: 'refused-unless-overridden',
    rules: {
      ...toyMachine.rules,
      Active: { ...toyMachine.rules.Active, unclassifiedChanges: 'allowed' },
      Busy: { ...toyMachine.rules.Busy, unclassifiedChanges: 'refused' },
    },
  };
  const summary =
    'changes no change kind names: refused in Busy; refused unless overridden in Broken, Gone, an unrecognised phase; allowed in Draft, Active';

  it('notes each state that refuses them, and sums up every state and an unrecognised phase, in each format', () => {
    const mermaid = renderMachine(strict, 'mermaid');
    expect(mermaid).toContain('    note right of Busy\n        changes no change kind names: refused\n    end note');
    expect(mermaid).toContain(
      '    note right of Broken\n        human intervention\n        changes no change kind names: refused unless overridden\n    end note',
    );
    expect(mermaid).toContain(`    %% ${summary}\n`);
    const dot = renderMachine(strict, 'dot');
    expect(dot).toContain('"Busy" [label="Busy\\nchanges no change kind names: refused"];');
    expect(dot).toContain(`${summary}\\l`);
    const table = renderMachine(strict, 'table');
    expect(table).toContain('| Busy | label (stay) (changes no change kind names: refused) | Active, Broken |');
    expect(table).toContain('| Active | size.up, color -> Busy; label (stay) | Broken |');
    expect(table).toContain(`\n\n${summary}\n`);
  });
});

describe('renderMachine: where the states come from', () => {
  it("lists the operator's phase strings under the table", async () => {
    const { toyMachine } = await import('../toy-machine.fixture.ts');
    const table = renderMachine({ ...toyMachine, phases: { 'Cluster in healthy state': 'Active' } }, 'table');
    expect(table).toContain(
      'The state is read from status.phase, in the operator\'s words:\n- "Cluster in healthy state" -> Active',
    );
  });

  it('lists the conditionStates rules under the table, in their order', async () => {
    const { toyConditionStates, toyMachine } = await import('../toy-machine.fixture.ts');
    const table = renderMachine(
      {
        ...toyMachine,
        phasePath: undefined,
        conditionStates: [...toyConditionStates.slice(0, 4), { when: [], state: 'Busy' }],
      },
      'table',
    );
    expect(table).toContain(
      [
        'The state is read from the status by the first conditionStates rule that holds (none: an unrecognised state):',
        '- no Ready condition -> nothing recorded yet (Draft)',
        '- observedGeneration behind the generation -> Busy',
        '- condition Ready with status "True" and observedGeneration at or past the generation -> Active',
        '- condition Ready with status "False", reason "Stuck" -> Broken',
        '- always -> Busy',
      ].join('\n'),
    );
  });
});
