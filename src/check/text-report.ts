import { formatFieldError } from '../contract/values/field-error.ts';
import type { ObjectCheck, TreeCheckReport } from './check-tree.ts';
import {
  crdNotes,
  describeCrdFinding,
  describeCrdRevision,
  describeDefault,
  describeDuplicate,
  describeEvidence,
  describeInvalid,
  summarize,
  summaryLine,
} from './report-summary.ts';
import { namespacedName } from '../contract/values/kube-object.ts';
import { describeLocation } from './manifest-documents.ts';
import { storedObjectsLines } from './stored-objects-report.ts';

const stateSources = { status: 'its status', flag: '--state', contract: "the contract's steady state" } as const;

/**
 * The report for people: a line per document that is not valid YAML or JSON (the first thing to fix), a paragraph
 * per decided object (every cause, warning and default), then the summary, which counts the empty files.
 */
export function renderTextReport(report: TreeCheckReport): string {
  const invalid = report.invalid.map((entry) => `${describeInvalid(entry)} (${entry.code})`);
  const notes = crdNotes(report).map((note) => `warning: ${note}`);
  // A CRD revision comes before the objects: what changed in the CRD explains what happens to them.
  const revisions = report.crdRevisions.flatMap((revision) => {
    const evidence = describeEvidence(revision);
    return [
      describeCrdRevision(revision),
      ...(evidence === undefined ? [] : [`  note: ${evidence}`]),
      ...revision.findings.map((finding) => `  ${describeCrdFinding(finding)}`),
    ];
  });
  const stored = report.storedObjects ? storedObjectsLines(report.storedObjects) : [];
  return [
    ...invalid,
    ...notes,
    ...revisions,
    ...stored,
    ...report.objects.flatMap(objectLines),
    summaryLine(summarize(report)),
    '',
  ].join('\n');
}

function objectLines(check: ObjectCheck): string[] {
  const subject = `${check.kind} ${namespacedName(check)} (${check.apiVersion})`;
  const state = check.state ? ` in state ${check.state.state} (from ${stateSources[check.state.source]})` : '';
  const verdict = check.allowed ? 'allowed' : `denied ${check.code}`;
  const lines = [`${describeLocation(check.location)}: ${subject} ${check.operation}${state}: ${verdict}`];
  if (check.oldLocation) lines.push(`  previous revision: ${describeLocation(check.oldLocation)}`);
  if (check.duplicateOf) lines.push(`  duplicate: ${describeDuplicate(check.duplicateOf)}`);
  // One line per cause reads better in a pipeline log than the API server's single comma-joined message.
  if (!check.allowed)
    lines.push(
      ...(check.causes.length > 0
        ? check.causes.map((c) => `  ${formatFieldError(c)}`)
        : [`  ${check.message ?? check.code}`]),
    );
  // Not the API server's answer: what comes next, once its causes are fixed.
  lines.push(...(check.next ?? []).map((c) => `  then the webhook: ${formatFieldError(c)}`));
  lines.push(...check.warnings.map((w) => `  warning: ${w}`));
  lines.push(...Object.entries(check.auditAnnotations ?? {}).map(([key, value]) => `  audit ${key}: ${value}`));
  lines.push(...check.defaults.map((d) => `  default ${describeDefault(d)}`));
  return lines;
}
