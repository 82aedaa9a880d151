import type { StoredObjectsReport } from './stored-objects.ts';

/** What the summary counts of stored objects: objects judged, and findings of each severity. */
export function storedObjectsCounts(report: StoredObjectsReport): {
  storedObjects: number;
  storedObjectErrors: number;
  storedObjectWarnings: number;
} {
  const entries = report.crds.flatMap((crd) => crd.findings);
  const count = (severity: 'error' | 'warning') =>
    entries.filter((entry) => entry.severity === severity).reduce((sum, entry) => sum + entry.count, 0);
  return {
    storedObjects: report.crds.reduce((sum, crd) => sum + crd.objects, 0),
    storedObjectErrors: count('error'),
    storedObjectWarnings: count('warning'),
  };
}
