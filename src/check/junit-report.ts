import { formatFieldError } from '../contract/field-error.ts';
import type { ObjectCheck, TreeCheckReport } from './check-tree.ts';
import { describeDefault, describeLocation, summarize, summaryLine } from './report-summary.ts';

/**
 * JUnit XML for CI systems: a testsuite per file, a testcase per decided object, a failure per denial (its type
 * the decision code, its text one line per cause). Warnings and defaults go to the testcase's system-out.
 */
export function renderJunitReport(report: TreeCheckReport): string {
  const summary = summarize(report);
  const byFile = new Map<string, ObjectCheck[]>();
  for (const check of report.objects) byFile.set(check.location.file, [...(byFile.get(check.location.file) ?? []), check]);
  const suites = [...byFile].map(([file, checks]) => {
    const failures = checks.filter((check) => !check.allowed).length;
    return [
      `  <testsuite name="${xml(file)}" tests="${checks.length}" failures="${failures}" errors="0" skipped="0">`,
      ...checks.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="crdgate check" tests="${summary.checked}" failures="${summary.denied}" errors="0" skipped="0">`,
    ...suites,
    `  <system-out>${xmlText(summaryLine(summary))}</system-out>`,
    '</testsuites>',
    '',
  ].join('\n');
}

function testcase(check: ObjectCheck): string {
  const name = `${check.kind} ${check.namespace ? `${check.namespace}/` : ''}${check.name} ${check.operation} ${describeLocation(check.location)}`;
  const open = `    <testcase classname="${xml(check.location.file)}" name="${xml(name)}" file="${xml(check.location.file)}" line="${check.location.line}">`;
  const body: string[] = [];
  if (!check.allowed) {
    const detail = check.causes.length > 0 ? check.causes.map(formatFieldError).join('\n') : (check.message ?? check.code);
    body.push(`      <failure type="${check.code}" message="${xml(check.message ?? check.code)}">${xmlText(detail)}</failure>`);
  }
  const output = [...check.warnings.map((w) => `warning: ${w}`), ...check.defaults.map((d) => `default ${describeDefault(d)}`)];
  if (output.length > 0) body.push(`      <system-out>${xmlText(output.join('\n'))}</system-out>`);
  return body.length === 0 ? `${open.slice(0, -1)}/>` : [open, ...body, '    </testcase>'].join('\n');
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
