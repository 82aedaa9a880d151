import { rungMeaning, type LadderStep } from '../cost-ladder.ts';
import { textTable } from './text-table.ts';

/** One row per rung, one column per payload and endpoint: the CPU µs each layer adds per request. */
export function renderCostLadder(steps: LadderStep[]): string {
  const columns = [...new Set(steps.map((step) => `${step.payload} ${step.path}`))];
  const rungs = [...new Set(steps.map((step) => step.rung))];
  const cell = (rung: string, column: string) => {
    const step = steps.find(
      (candidate) => candidate.rung === rung && `${candidate.payload} ${candidate.path}` === column,
    );
    return step ? `${step.addedMicros >= 0 && rung !== rungs[0] ? '+' : ''}${step.addedMicros.toFixed(0)}` : '';
  };
  const total = (column: string) =>
    steps.find((step) => step.rung === rungs.at(-1) && `${step.payload} ${step.path}` === column)
      ?.cpuMicrosPerRequest ?? Number.NaN;
  const bare = (column: string) =>
    steps.find((step) => step.rung === rungs[0] && `${step.payload} ${step.path}` === column)?.cpuMicrosPerRequest ??
    Number.NaN;
  return [
    'Cost ladder: server CPU µs per request added by each layer (process CPU time / requests; cheapest round)',
    textTable(
      ['rung', ...columns, 'what the rung adds'],
      [
        ...rungs.map((rung) => [
          rung,
          ...columns.map((column) => cell(rung, column)),
          rungMeaning[rung as keyof typeof rungMeaning],
        ]),
        ['= crdgate total', ...columns.map((column) => total(column).toFixed(0)), ''],
        [
          'bare / crdgate',
          ...columns.map((column) => `${(bare(column) / total(column)).toFixed(2)}x`),
          'the throughput-per-core ratio these costs imply',
        ],
      ],
    ),
  ].join('\n');
}
