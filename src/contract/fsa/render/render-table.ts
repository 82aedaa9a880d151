import {
  anyChangeRemark,
  exclusiveLegend,
  overrideOnlyLegend,
  stateRemarks,
  unclassifiedLegend,
  unsupportedLegend,
} from './machine-legend.ts';
import type { StatusTest, Fsa } from '../machine.ts';

/** A Markdown table of states and their allowed changes, followed by the unsupported, override-only and exclusive changes. */
export function renderTable<S extends string, C extends string>(machine: Fsa<S, C>): string {
  const rows = machine.states.map((state) => {
    const operatorMoves = machine.rules[state]?.operatorMoves ?? [];
    return `| ${state} | ${cell(allowedChanges(machine, state))} | ${cell(operatorMoves.join(', ') || 'none')} |`;
  });
  const [unsupportedHeading, ...unsupported] = unsupportedLegend(machine);
  const [overrideOnlyHeading, ...overrideOnly] = overrideOnlyLegend(machine);
  const sections = [
    ['| state | allowed changes (-> expected next state) | operator moves |', '|---|---|---|', ...rows],
    unsupportedHeading === undefined ? [] : [unsupportedHeading, ...unsupported.map((line) => `- ${line}`)],
    overrideOnlyHeading === undefined ? [] : [overrideOnlyHeading, ...overrideOnly.map((line) => `- ${line}`)],
    exclusiveLegend(machine),
    unclassifiedLegend(machine),
    stateSource(machine),
  ].filter((section) => section.length > 0);
  return `${sections.map((section) => section.join('\n')).join('\n\n')}\n`;
}

/** `scale, cache.add -> Scaling; storage.grow -> Resizing`, `scale (stay)`, or `none (human intervention)`. */
function allowedChanges<S extends string, C extends string>(machine: Fsa<S, C>, state: S): string {
  const rule = machine.rules[state];
  const groups = (rule?.allow ?? []).map((group) =>
    group.next === undefined || group.next === state
      ? `${group.changes.join(', ')} (stay)`
      : `${group.changes.join(', ')} -> ${group.next}`,
  );
  const allowed = [...(rule?.anyChange ? [anyChangeRemark] : []), ...groups].join('; ') || 'none';
  const remarks = stateRemarks(machine, state);
  return remarks.length > 0 ? `${allowed} (${remarks.join('; ')})` : allowed;
}

/** Where the states come from, when it is not the states' own names at phasePath: the operator's words, conditions, or code. */
function stateSource<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  if (machine.readState !== undefined) return ['The state is read by readState, a function of the stored object.'];
  if (machine.conditionStates !== undefined) {
    return [
      'The state is read from the status by the first conditionStates rule that holds (none: an unrecognised state):',
      ...machine.conditionStates.map(
        (rule) =>
          `- ${rule.when.length === 0 ? 'always' : rule.when.map(describeStatusTest).join(' and ')} -> ${rule.state ?? `nothing recorded yet (${machine.initialState})`}`,
      ),
    ];
  }
  if (machine.phases === undefined) return [];
  const entries = Object.entries(machine.phases) as [string, S][];
  return [
    `The state is read from ${machine.phasePath}, in the operator's words:`,
    ...entries.map(([phase, state]) => `- ${JSON.stringify(phase)} -> ${state}`),
  ];
}

function describeStatusTest(test: StatusTest): string {
  if ('observedGeneration' in test)
    return `observedGeneration ${test.observedGeneration === 'behind' ? 'behind' : 'at or past'} the generation`;
  if (test.absent) return `no ${test.condition} condition`;
  const fields = [
    test.status === undefined ? undefined : `status ${JSON.stringify(test.status)}`,
    test.reason === undefined ? undefined : `reason ${JSON.stringify(test.reason)}`,
  ].filter((part) => part !== undefined);
  return `condition ${test.condition}${fields.length > 0 ? ` with ${fields.join(', ')}` : ''}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
