import type { TreeCheckReport } from './check-tree.ts';
import { summarize } from './report-summary.ts';

/** The report for tools: the summary, every decided object without the object itself, and the non-objects. */
export function renderJsonReport(report: TreeCheckReport): string {
  const objects = report.objects.map(({ object: _object, ...check }) => check);
  return `${JSON.stringify({ summary: summarize(report), objects, notObjects: report.notObjects }, null, 2)}\n`;
}
