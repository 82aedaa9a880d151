import { formatFieldError } from '../contract/values/field-error.ts';
import { describeLocation, emptyReasons, type EmptyManifest, type InvalidManifest } from './manifest-documents.ts';
import type { ObjectCheck, TreeCheckReport, TreeName } from './check-tree.ts';
import type { CrdRevisionCheck } from './crd-revisions.ts';
import type { crdRevisionCodes } from '../errors.ts';
import {
  crdNotes,
  describeCrdFinding,
  describeCrdRevision,
  describeDefault,
  describeDuplicate,
  describeInvalid,
  describeRevisionSource,
  summarize,
  summaryLine,
} from './report-summary.ts';
import { namespacedName } from '../contract/values/kube-object.ts';
import { storedObjectsSources, type StoredObjectsCrdReport } from './stored-objects.ts';
import { describeStoredExample, describeStoredObjectsCrd, describeTallyEntry } from './stored-objects-report.ts';

interface Suite {
  testcases: string[];
  failures: number;
  skipped: number;
}

/**
 * JUnit XML for CI systems: a testsuite per file, a testcase per decided object, a failure per denial (its type
 * the decision code, its text one line per cause). Warnings and defaults go to the testcase's system-out. A
 * document not valid YAML or JSON is a testcase named by its file, failed with the code; an empty file, document
 * or List a skipped testcase, so that the report is whole whatever the tree holds.
 */
export function renderJunitReport(report: TreeCheckReport): string {
  const summary = summarize(report);
  const byFile = new Map<string, Suite>();
  const add = (file: string, testcase: string, outcome: 'passed' | 'failed' | 'skipped') => {
    const suite = byFile.get(file) ?? { testcases: [], failures: 0, skipped: 0 };
    byFile.set(file, suite);
    suite.testcases.push(testcase);
    if (outcome === 'failed') suite.failures += 1;
    if (outcome === 'skipped') suite.skipped += 1;
  };
  for (const entry of report.invalid) add(entry.location.file, invalidTestcase(entry), 'failed');
  for (const revision of report.crdRevisions)
    add(revision.location.file, crdRevisionTestcase(revision), revisionFails(revision) ? 'failed' : 'passed');
  for (const crd of report.storedObjects?.crds ?? [])
    add(crd.location?.file ?? '--stored', storedObjectsTestcase(crd), storedObjectsFail(crd) ? 'failed' : 'passed');
  for (const check of report.objects)
    add(check.location.file, testcase(check), check.allowed && !check.duplicateOf ? 'passed' : 'failed');
  for (const entry of report.empty) add(entry.location.file, emptyTestcase(entry), 'skipped');
  const suites = [...byFile].map(([file, suite]) =>
    [
      `  <testsuite name="${xml(file)}" tests="${suite.testcases.length}" failures="${suite.failures}" errors="0" skipped="${suite.skipped}">`,
      ...suite.testcases,
      '  </testsuite>',
    ].join('\n'),
  );
  const storedCrds = report.storedObjects?.crds ?? [];
  const tests = summary.checked + summary.invalid + summary.empty + summary.crdRevisions + storedCrds.length;
  const failedRevisions =
    report.crdRevisions.filter(revisionFails).length + storedCrds.filter(storedObjectsFail).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="crdgate check" tests="${tests}" failures="${report.objects.filter((check) => !check.allowed || check.duplicateOf).length + summary.invalid + failedRevisions}" errors="0" skipped="${summary.empty}">`,
    ...suites,
    `  <system-out>${xmlText([...crdNotes(report).map((note) => `warning: ${note}`), summaryLine(summary)].join('\n'))}</system-out>`,
    '</testsuites>',
    '',
  ].join('\n');
}

function testcase(check: ObjectCheck): string {
  const name = `${check.kind} ${namespacedName(check)} ${check.operation} ${describeLocation(check.location)}`;
  const open = `    <testcase classname="${xml(check.location.file)}" name="${xml(name)}" file="${xml(check.location.file)}" line="${check.location.line}">`;
  const body: string[] = [];
  if (!check.allowed) {
    const causes = check.causes.length > 0 ? check.causes.map(formatFieldError) : [check.message ?? check.code];
    const next = (check.next ?? []).map((cause) => `then the webhook: ${formatFieldError(cause)}`);
    const detail = [...causes, ...next, ...(check.duplicateOf ? [describeDuplicate(check.duplicateOf)] : [])].join(
      '\n',
    );
    body.push(
      `      <failure type="${check.code}" message="${xml(check.message ?? check.code)}">${xmlText(detail)}</failure>`,
    );
  } else if (check.duplicateOf) {
    const message = describeDuplicate(check.duplicateOf);
    body.push(`      <failure type="OBJECT_DUPLICATE" message="${xml(message)}">${xmlText(message)}</failure>`);
  }
  const output = [
    ...check.warnings.map((w) => `warning: ${w}`),
    ...check.defaults.map((d) => `default ${describeDefault(d)}`),
  ];
  if (output.length > 0) body.push(`      <system-out>${xmlText(output.join('\n'))}</system-out>`);
  return body.length === 0 ? `${open.slice(0, -1)}/>` : [open, ...body, '    </testcase>'].join('\n');
}

const breaking: keyof typeof crdRevisionCodes = 'CRD_REVISION_BREAKING';
const revisionFails = (revision: CrdRevisionCheck) => revision.findings.some((finding) => finding.severity === 'error');

/** A compared CRD: failed (CRD_REVISION_BREAKING) with its error findings, its warnings in system-out. */
function crdRevisionTestcase(revision: CrdRevisionCheck): string {
  const { file, line } = revision.location;
  const name = `CustomResourceDefinition ${revision.name} revision ${describeRevisionSource(revision, 'location')}`;
  const open = `    <testcase classname="${xml(file)}" name="${xml(name)}" file="${xml(file)}" line="${line}">`;
  const errors = revision.findings.filter((finding) => finding.severity === 'error').map(describeCrdFinding);
  const warnings = revision.findings.filter((finding) => finding.severity === 'warning').map(describeCrdFinding);
  const body: string[] = [];
  if (errors.length > 0)
    body.push(
      `      <failure type="${breaking}" message="${xml(describeCrdRevision(revision))}">${xmlText(errors.join('\n'))}</failure>`,
    );
  if (warnings.length > 0) body.push(`      <system-out>${xmlText(warnings.join('\n'))}</system-out>`);
  return body.length === 0 ? `${open.slice(0, -1)}/>` : [open, ...body, '    </testcase>'].join('\n');
}

const storedBreaking: keyof typeof crdRevisionCodes = 'STORED_OBJECTS_BREAKING';
const storedObjectsFail = (crd: StoredObjectsCrdReport) => crd.findings.some((entry) => entry.severity === 'error');

/** The stored objects of one CRD: failed (STORED_OBJECTS_BREAKING) with its error findings and their examples, the rest in system-out. */
function storedObjectsTestcase(crd: StoredObjectsCrdReport): string {
  const file = crd.location?.file ?? '--stored';
  const name = `stored ${crd.name} objects from ${storedObjectsSources[crd.source ?? 'stored']}`;
  const open = `    <testcase classname="${xml(file)}" name="${xml(name)}" file="${xml(file)}" line="${crd.location?.line ?? 1}">`;
  const lines = (severity: 'error' | 'warning') =>
    crd.findings
      .filter((entry) => entry.severity === severity)
      .flatMap((entry) => [
        describeTallyEntry(entry),
        ...entry.examples.map((example) => `  ${describeStoredExample(example)}`),
      ]);
  const [errors, warnings] = [lines('error'), lines('warning')];
  const body: string[] = [];
  if (errors.length > 0)
    body.push(
      `      <failure type="${storedBreaking}" message="${xml(describeStoredObjectsCrd(crd))}">${xmlText(errors.join('\n'))}</failure>`,
    );
  if (warnings.length > 0) body.push(`      <system-out>${xmlText(warnings.join('\n'))}</system-out>`);
  return body.length === 0 ? `${open.slice(0, -1)}/>` : [open, ...body, '    </testcase>'].join('\n');
}

/** Named by the file alone: there is no object to name, and the file is what a reader opens to fix it. */
function invalidTestcase(entry: InvalidManifest & { tree: TreeName }): string {
  const { file, line } = entry.location;
  return [
    `    <testcase classname="${xml(file)}" name="${xml(file)}" file="${xml(file)}" line="${line}">`,
    `      <failure type="${entry.code}" message="${xml(describeInvalid(entry))}">${xmlText(describeInvalid(entry))}</failure>`,
    '    </testcase>',
  ].join('\n');
}

function emptyTestcase(entry: EmptyManifest): string {
  const { file, line } = entry.location;
  return [
    `    <testcase classname="${xml(file)}" name="${xml(file)}" file="${xml(file)}" line="${line}">`,
    `      <skipped type="${entry.reason}" message="${xml(emptyReasons[entry.reason])}"/>`,
    '    </testcase>',
  ].join('\n');
}

/** Text as XML character data; characters XML 1.0 cannot carry at all are dropped. */
function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** An attribute value keeps its line breaks only as character references. */
function xml(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;');
}
