import { namespacedName } from '../contract/values/kube-object.ts';
import type { StoredObjectFinding } from '../crd-revision/objects/stored-object-finding.ts';
import type { TallyEntry } from '../crd-revision/objects/stored-object-tally.ts';
import { describeLocation } from './manifest-documents.ts';
import { plural } from './report-summary.ts';
import { storedObjectsSources, type StoredObjectsCrdReport, type StoredObjectsReport } from './stored-objects.ts';

/** `stored objects of mailboxes.mail.example.com (--stored) through its new revision: 4 objects, 6 errors, 3 warnings` */
export function describeStoredObjectsCrd(crd: StoredObjectsCrdReport): string {
  const errors = crd.findings
    .filter((entry) => entry.severity === 'error')
    .reduce((sum, entry) => sum + entry.count, 0);
  const warnings = crd.findings
    .filter((entry) => entry.severity === 'warning')
    .reduce((sum, entry) => sum + entry.count, 0);
  const from = storedObjectsSources[crd.source ?? 'stored'];
  const where = crd.location ? ` (${describeLocation(crd.location)})` : '';
  const outcome =
    crd.findings.length === 0
      ? 'nothing happens to them'
      : `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
  return `stored objects of CustomResourceDefinition ${crd.name}${where} from ${from}, through its new revision: ${plural(crd.objects, 'object')}, ${outcome}`;
}

/** `error recreateRefused: 3 (the object created again ... is refused)`: a rule's count, and what it finds. */
export function describeTallyEntry(entry: TallyEntry): string {
  const unseen = entry.unseen ? ' (depends on what crdgate cannot see)' : '';
  return `${entry.severity} ${entry.rule}${unseen}: ${entry.count}`;
}

/** `Mailbox mail/ann (mail.example.com/v1): spec.quota ...`: one example. */
export function describeStoredExample(finding: StoredObjectFinding): string {
  const subject = finding.object
    ? `${finding.object.kind} ${namespacedName(finding.object)} (${finding.object.apiVersion}): `
    : '';
  const version = finding.version !== undefined && finding.object === undefined ? `(${finding.version}) ` : '';
  return `${subject}${version}${finding.message}`;
}

/** The text report's lines: per CRD a heading, per rule its count, and its first examples. */
export function storedObjectsLines(report: StoredObjectsReport): string[] {
  const lines = report.crds.flatMap((crd) => [
    describeStoredObjectsCrd(crd),
    ...crd.findings.flatMap((entry) => [
      `  ${describeTallyEntry(entry)}`,
      ...entry.examples.map((example) => `    ${describeStoredExample(example)}`),
    ]),
  ]);
  const unmatched = Object.entries(report.unmatched);
  if (unmatched.length > 0)
    lines.push(
      `stored objects of kinds no CRD of the run declares, not judged: ${unmatched.map(([kind, count]) => `${kind} ${count}`).join(', ')}`,
    );
  return lines;
}
