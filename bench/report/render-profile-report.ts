import type { ProfiledRun } from '../profile/profile-suite.ts';
import { textTable } from './text-table.ts';

const micros = (ms: number, requests: number) => (requests > 0 ? ((ms * 1000) / requests).toFixed(1) : 'n/a');

/** CPU µs per request by category, one column per run; then each crdgate run's costliest functions. */
export function renderProfileReport(runs: ProfiledRun[]): string {
  const categories = [...new Set(runs.flatMap((run) => run.summary.byCategory.map((share) => share.name)))];
  const msIn = (run: ProfiledRun, category: string) =>
    run.summary.byCategory.find((share) => share.name === category)?.ms ?? 0;
  categories.sort(
    (a, b) =>
      runs.reduce((sum, run) => sum + msIn(run, b) / Math.max(1, run.requests), 0) -
      runs.reduce((sum, run) => sum + msIn(run, a) / Math.max(1, run.requests), 0),
  );
  const sections = [
    'Sampled time per request (µs), by where it was spent (closed-loop load; idle excluded). Samples count wall time:',
    'where "busy share" exceeds "CPU share", the process was runnable but descheduled, and that time lands on',
    'whatever frame it was in (typically the socket write that woke the load generator).',
    textTable(
      ['category', ...runs.map((run) => run.label)],
      [
        ...categories.map((category) => [category, ...runs.map((run) => micros(msIn(run, category), run.requests))]),
        ['TOTAL busy', ...runs.map((run) => micros(run.summary.busyMs, run.requests))],
        ['requests profiled', ...runs.map((run) => String(run.requests))],
        [
          'busy share (wall clock, sampled)',
          ...runs.map((run) => `${((run.summary.busyMs / run.measureMs) * 100).toFixed(0)}%`),
        ],
        ['CPU share (process CPU time)', ...runs.map((run) => `${(run.serverCpuShare * 100).toFixed(0)}%`)],
      ],
    ),
  ];
  for (const run of runs.filter((candidate) => candidate.label.startsWith('crdgate'))) {
    const rows = (shares: ProfiledRun['summary']['topSelf']) =>
      shares.map((share) => [
        micros(share.ms, run.requests),
        `${((share.ms / run.summary.busyMs) * 100).toFixed(1)}%`,
        share.category,
        share.name,
      ]);
    sections.push(
      '',
      `${run.label}: top functions by SELF time (µs/request, % of busy)   [${run.profilePath}]`,
      textTable(['µs/req', '%', 'category', 'function'], rows(run.summary.topSelf)),
      '',
      `${run.label}: top functions by TOTAL time (callees included)`,
      textTable(['µs/req', '%', 'category', 'function'], rows(run.summary.topTotal)),
    );
  }
  return `${sections.join('\n')}\n`;
}
