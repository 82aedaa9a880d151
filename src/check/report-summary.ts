import type { CheckOperation } from '../admission/check-object.ts';
import type { DefaultedField } from '../admission/check-object.ts';
import type { ManifestLocation } from './manifest-documents.ts';
import type { TreeCheckReport } from './check-tree.ts';

export interface TreeCheckSummary {
  checked: number;
  allowed: number;
  denied: number;
  operations: Record<CheckOperation, number>;
  /** Objects of kinds no contract declares, not decided. */
  skipped: number;
  skippedKinds: Record<string, number>;
  /** Documents without apiVersion and kind. */
  notObjects: number;
}

export function summarize(report: TreeCheckReport): TreeCheckSummary {
  const operations: Record<CheckOperation, number> = { CREATE: 0, UPDATE: 0, DELETE: 0 };
  for (const check of report.objects) operations[check.operation] += 1;
  const allowed = report.objects.filter((check) => check.allowed).length;
  return {
    checked: report.objects.length,
    allowed,
    denied: report.objects.length - allowed,
    operations,
    skipped: Object.values(report.skipped).reduce((sum, count) => sum + count, 0),
    skippedKinds: report.skipped,
    notObjects: report.notObjects.length,
  };
}

/** One line for the end of a pipeline's log: what was decided, what was denied, and what was passed over. */
export function summaryLine(summary: TreeCheckSummary): string {
  const operations = Object.entries(summary.operations).filter(([, count]) => count > 0).map(([operation, count]) => `${operation} ${count}`);
  const parts = [`checked ${plural(summary.checked, 'object')}: ${summary.allowed} allowed, ${summary.denied} denied${operations.length > 0 ? ` (${operations.join(', ')})` : ''}`];
  if (summary.skipped > 0) {
    const kinds = Object.entries(summary.skippedKinds).sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, count]) => `${kind} ${count}`);
    parts.push(`skipped ${summary.skipped} of kinds no contract declares (${kinds.join(', ')})`);
  }
  if (summary.notObjects > 0) parts.push(`${plural(summary.notObjects, 'document')} without apiVersion and kind`);
  return parts.join('; ');
}

/** `apps/db.yaml:14 (document 2)`, `list.yaml:9 (document 1, items[3])`: a line an editor jumps to, and the document. */
export function describeLocation(location: ManifestLocation): string {
  const file = location.file === '-' ? '<stdin>' : location.file;
  return `${file}:${location.line} (document ${location.document}${location.item === undefined ? '' : `, items[${location.item}]`})`;
}

export function describeDefault(field: DefaultedField): string {
  return `${field.field}: ${'value' in field ? JSON.stringify(field.value) : '(removed)'}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
