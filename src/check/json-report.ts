import type { TreeCheckReport } from './check-tree.ts';
import { summarize } from './report-summary.ts';

/**
 * The report for tools: the summary, every decided object without the object itself, the documents not valid
 * YAML or JSON (`code`, `location` with line and column, `tree`), the empty ones (`reason`), the non-objects, the CRDs read (`decidedBy`: crd or contract),
 * and each CRD compared with its previous revision (`findings`: rule, severity, version, path, old, new, message);
 * with stored objects judged, `storedObjects` (`crds`: name, source, objects, `findings`: rule, severity, count,
 * examples; `unmatched`).
 */
export function renderJsonReport(report: TreeCheckReport): string {
  const objects = report.objects.map(({ object: _object, ...check }) => check);
  const { invalid, empty, notObjects, crds, crdRevisions, storedObjects } = report;
  return `${JSON.stringify({ summary: summarize(report), objects, invalid, empty, notObjects, crds, crdRevisions, ...(storedObjects ? { storedObjects } : {}) }, null, 2)}\n`;
}
