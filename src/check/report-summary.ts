import type { CheckOperation } from './check-object.ts';
import type { DefaultedField } from './check-object.ts';
import {
  describeLocation,
  type EmptyReason,
  type InvalidManifest,
  type ManifestLocation,
} from './manifest-documents.ts';
import type { TreeCheckReport, TreeName } from './check-tree.ts';
import type { CrdRevisionCheck } from './crd-revisions.ts';
import type { CrdUse } from './crd-kinds.ts';
import type { CrdRevisionFinding } from '../crd-revision/finding.ts';
import { decidedByObjects } from '../crd-revision/rules.ts';
import { storedObjectsCounts } from './stored-objects-counts.ts';

export interface TreeCheckSummary {
  checked: number;
  allowed: number;
  denied: number;
  operations: Record<CheckOperation, number>;
  /** Objects of kinds no contract (nor CRD read) declares, not decided. */
  skipped: number;
  skippedKinds: Record<string, number>;
  /** CustomResourceDefinitions read (in the tree and with --crd), the same one counted once. */
  crds: number;
  /** Documents without apiVersion and kind. */
  notObjects: number;
  /** Documents not valid YAML or JSON: failures, like denials. */
  invalid: number;
  /** Objects the tree holds more than once, counted past the first: failures, each judged all the same. */
  duplicates: number;
  /** Files, documents and Lists with nothing in them, counted by reason (only the reasons met). */
  empty: number;
  emptyReasons: Partial<Record<EmptyReason, number>>;
  /** CRDs both trees hold, compared with their previous revision, and the findings of error and warning severity. */
  crdRevisions: number;
  crdRevisionErrors: number;
  crdRevisionWarnings: number;
  /** With stored objects judged (--stored, or the old tree's objects of a changed CRD): how many, and the findings of each severity. */
  storedObjects?: number;
  storedObjectErrors?: number;
  storedObjectWarnings?: number;
}

export function summarize(report: TreeCheckReport): TreeCheckSummary {
  const operations: Record<CheckOperation, number> = { CREATE: 0, UPDATE: 0, DELETE: 0 };
  for (const check of report.objects) operations[check.operation] += 1;
  const allowed = report.objects.filter((check) => check.allowed).length;
  const emptyReasons: Partial<Record<EmptyReason, number>> = {};
  for (const { reason } of report.empty) emptyReasons[reason] = (emptyReasons[reason] ?? 0) + 1;
  const crdFindings = report.crdRevisions.flatMap((revision) => revision.findings);
  return {
    checked: report.objects.length,
    allowed,
    denied: report.objects.length - allowed,
    operations,
    skipped: Object.values(report.skipped).reduce((sum, count) => sum + count, 0),
    skippedKinds: report.skipped,
    crds: report.crds.length,
    notObjects: report.notObjects.length,
    invalid: report.invalid.length,
    duplicates: report.objects.filter((check) => check.duplicateOf !== undefined).length,
    empty: report.empty.length,
    emptyReasons,
    crdRevisions: report.crdRevisions.length,
    crdRevisionErrors: crdFindings.filter((finding) => finding.severity === 'error').length,
    crdRevisionWarnings: crdFindings.filter((finding) => finding.severity === 'warning').length,
    ...(report.storedObjects ? storedObjectsCounts(report.storedObjects) : {}),
  };
}

/** Whether the tree passes: every object allowed, every file read, no object twice, no CRD revision and no stored object in error. */
export function treePassed(summary: TreeCheckSummary): boolean {
  return (
    summary.denied === 0 &&
    summary.invalid === 0 &&
    summary.duplicates === 0 &&
    summary.crdRevisionErrors === 0 &&
    (summary.storedObjectErrors ?? 0) === 0
  );
}

/** One line for the end of a pipeline's log: what was decided, what was denied, and what was passed over. */
export function summaryLine(summary: TreeCheckSummary): string {
  const operations = Object.entries(summary.operations)
    .filter(([, count]) => count > 0)
    .map(([operation, count]) => `${operation} ${count}`);
  const parts = [
    `checked ${plural(summary.checked, 'object')}: ${summary.allowed} allowed, ${summary.denied} denied${operations.length > 0 ? ` (${operations.join(', ')})` : ''}`,
  ];
  if (summary.crds > 0) parts.push(`${plural(summary.crds, 'CustomResourceDefinition')} read`);
  if (summary.crdRevisions > 0) {
    parts.push(
      `compared ${plural(summary.crdRevisions, 'CustomResourceDefinition')} with the previous revision: ${plural(summary.crdRevisionErrors, 'error')}, ${plural(summary.crdRevisionWarnings, 'warning')}`,
    );
  }
  if (summary.storedObjects !== undefined) {
    parts.push(
      `judged ${plural(summary.storedObjects, 'stored object')} through the new revision of its CRD: ${plural(summary.storedObjectErrors ?? 0, 'error')}, ${plural(summary.storedObjectWarnings ?? 0, 'warning')}`,
    );
  }
  if (summary.skipped > 0) {
    parts.push(
      `skipped ${summary.skipped} of kinds no contract${summary.crds > 0 ? ' or CRD' : ''} declares (${countsByName(summary.skippedKinds)})`,
    );
  }
  if (summary.empty > 0) parts.push(`skipped ${summary.empty} empty (${countsByName(summary.emptyReasons)})`);
  if (summary.notObjects > 0) parts.push(`${plural(summary.notObjects, 'document')} without apiVersion and kind`);
  if (summary.invalid > 0) parts.push(`${plural(summary.invalid, 'document')} not valid YAML or JSON, so not checked`);
  if (summary.duplicates > 0)
    parts.push(`${plural(summary.duplicates, 'object')} in the tree a second time (OBJECT_DUPLICATE)`);
  return parts.join('; ');
}

/**
 * The skipped kinds that are custom resources (`Kind.group`, the group dotted and not one of Kubernetes' own, which
 * end in `.k8s.io`): objects crdgate could have decided had it been given their CRD or a contract, as a run that
 * forgot `--contract` would leave them. Built-in kinds (`Deployment.apps`, `ConfigMap`) are never among them.
 */
export function skippedCustomKinds(summary: Pick<TreeCheckSummary, 'skippedKinds'>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary.skippedKinds).filter(([kindGroup]) => {
      const group = kindGroup.slice(kindGroup.indexOf('.') + 1);
      return kindGroup.includes('.') && group.includes('.') && !group.endsWith('.k8s.io');
    }),
  );
}

/** The note a run that skipped custom resources ends with: how to have them decided. */
export function skippedCustomKindsNote(summary: Pick<TreeCheckSummary, 'skippedKinds'>): string | undefined {
  const custom = skippedCustomKinds(summary);
  if (Object.keys(custom).length === 0) return undefined;
  return `note: custom resources were not decided (${countsByName(custom)}): give their CRD with --crd, or the contract that guards them with --contract`;
}

function countsByName(counts: Record<string, number | undefined>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
}

/**
 * `apps/db.yaml:6:3: not valid YAML: Map keys must be unique`: one line, as editors and CI logs link a position;
 * a file of the previous revision says so, since fixing it is another branch's business.
 */
export function describeInvalid(entry: InvalidManifest & { tree: TreeName }): string {
  const { file, line, column } = entry.location;
  const language = entry.code === 'MANIFEST_NOT_JSON' ? 'JSON' : 'YAML';
  const revision = entry.tree === 'old' ? ' (previous revision, given with --old)' : '';
  return `${file === '-' ? '<stdin>' : file}:${line}:${column}: not valid ${language}${revision}: ${entry.message}`;
}

/** Why a second manifest of one object fails the check, though it is judged: the API server would apply both. */
export function describeDuplicate(first: ManifestLocation): string {
  return `the same object is at ${describeLocation(first)} already; the API server would apply both, the later one winning (OBJECT_DUPLICATE)`;
}

/**
 * A warning about a CRD read: one a contract overrides whose schema is not the contract's (a stale copy, say), or
 * whose names are not the contract's (its objects are denied, KIND_MISMATCH).
 */
export function crdNotes(report: TreeCheckReport): string[] {
  return report.crds.flatMap((use) => [...namesNotes(use), ...schemaNotes(use)]);
}

function namesNotes(use: CrdUse): string[] {
  const where = `${use.origin === 'crd-flag' ? '--crd ' : ''}${describeLocation(use.location)}: CustomResourceDefinition ${use.name}`;
  return [
    ...(use.contractKind === undefined
      ? []
      : [
          `${where}: serves kind ${use.kind}, and the contract for ${use.name} declares kind ${use.contractKind}: ` +
            `each object of kind ${use.kind} is denied (KIND_MISMATCH); make the contract's kind equal the CRD's spec.names.kind`,
        ]),
    ...(use.contractResource === undefined
      ? []
      : [
          `${where}: serves kind ${use.kind}, whose contract declares resource ${use.contractResource}: each object of ` +
            `kind ${use.kind} is denied (KIND_MISMATCH); make the contract's plural equal the CRD's spec.names.plural`,
        ]),
  ];
}

function schemaNotes(use: CrdUse): string[] {
  return use.differsFromContract
    ? [
        `${use.origin === 'crd-flag' ? '--crd ' : ''}${describeLocation(use.location)}: CustomResourceDefinition ${use.name}: the contract of ${use.kind} decides its objects, ` +
          (use.ownedBy === 'external'
            ? `and this CRD, its owner's, differs from the contract's copy of it in ${use.differsFromContract.join(', ')}${use.differences ? ` (${use.differences.join('; ')})` : ''}: ` +
              "crdgate serve reports the same drift against the live CRD; update the contract's copy from this release, or serve with --owner-schema live"
            : `and this CRD's schema differs from the contract's in ${use.differsFromContract.join(', ')} (crdgate manifests renders the contract's)`),
      ]
    : [];
}

export function describeDefault(field: DefaultedField): string {
  return `${field.field}: ${'value' in field ? JSON.stringify(field.value) : '(removed)'}`;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `crds/widgets.yaml:1 (document 1): CustomResourceDefinition widgets.toys.example.com, against ...: 1 error, 0 warnings` */
export function describeCrdRevision(revision: CrdRevisionCheck): string {
  const errors = revision.findings.filter((finding) => finding.severity === 'error').length;
  const counts =
    revision.findings.length === 0
      ? 'no change a rule reports'
      : `${plural(errors, 'error')}, ${plural(revision.findings.length - errors, 'warning')}`;
  const weighed = revision.findings.filter((finding) => finding.noObjectAffected !== undefined).length;
  const evidence =
    revision.evidence === undefined
      ? ''
      : ` (weighed against ${plural(revision.evidence.objects, 'stored object')}${weighed > 0 ? `: ${weighed} that no object is affected by are warnings` : ''})`;
  return `${describeRevisionSource(revision, 'location')}: CustomResourceDefinition ${revision.name} against its previous revision (${describeRevisionSource(revision, 'oldLocation')}): ${counts}${evidence}`;
}

/** Where a revision of a CRD is: a manifest's place in a tree, or the contract module that renders it. */
export function describeRevisionSource(revision: CrdRevisionCheck, which: 'location' | 'oldLocation'): string {
  return revision.from === 'contract' ? `contract ${revision[which].file}` : describeLocation(revision[which]);
}

/** `error existingFieldRemoval (v1): spec.size: removed ...`: one finding, on a line of its own. */
export function describeCrdFinding(finding: CrdRevisionFinding): string {
  const weighed =
    finding.noObjectAffected === undefined
      ? ''
      : `; no known object is affected (${plural(finding.noObjectAffected, 'object')} judged, all there are), so a warning`;
  return `${finding.severity} ${finding.rule}${finding.version === undefined ? '' : ` (${finding.version})`}: ${finding.message}${weighed}`;
}

/**
 * What decided a revision's severities, when it is worth saying: how to give the objects, where the rules alone
 * decided findings of error severity that the objects would decide; that they were not all known, where they were
 * judged but some were left out.
 */
export function describeEvidence(revision: CrdRevisionCheck): string | undefined {
  const weighable = revision.findings.some(
    (finding) => finding.severity === 'error' && decidedByObjects.has(finding.rule),
  );
  if (!weighable) return undefined;
  const evidence = revision.evidence;
  if (evidence === undefined)
    return (
      `the rules alone decide (no stored object of it judged): give its objects with --stored (\`kubectl get ${revision.name} -A -o yaml\`), ` +
      '--from-cluster or the --old tree, and a finding no object is affected by becomes a warning'
    );
  if (evidence.policy === 'rules') return 'the rules alone decide (evidence: rules in --crd-rules)';
  if (!evidence.complete)
    return `${plural(evidence.objects, 'stored object')} judged, not all there are: the rules alone decide`;
  return undefined;
}
