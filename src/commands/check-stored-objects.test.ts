import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { descendants, parseXml } from '../check/xml-elements.fixture.ts';
import { cliInTempDir } from '../cli-runner.fixture.ts';
import { storedObjectRules } from '../crd-revision/stored-object-rules.ts';

// crdgate check puts stored objects through their CRD's new revision (src/crd-revision/objects tests what is
// predicted, object by object; here, what the command makes of it: the flags, the reports, the exit codes). The
// fixture's Mailbox revision and objects are described in src/crd-revision/objects/predict-stored-object.test.ts.
const scratch = cliInTempDir('crdgate-check-stored-');
const fixture = (path: string) =>
  fileURLToPath(new URL(`../../test/fixtures/check/stored-objects/${path}`, import.meta.url));
const [newTree, oldTree, stored, manifests] = [
  fixture('new'),
  fixture('old'),
  fixture('stored.yaml'),
  fixture('mailbox-manifests.yaml'),
];

/** Rule → count, for one CRD's findings in the JSON report. */
const counts = (crd: { findings: Array<{ rule: string; count: number }> }) =>
  Object.fromEntries(crd.findings.map((entry) => [entry.rule, entry.count]));

async function write(path: string, text: string): Promise<string> {
  const file = join(scratch.dir(), path);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
  return file;
}

describe('crdgate check --stored', () => {
  it('counts every finding per CRD with the first examples, and fails on an error (JSON)', async () => {
    const result = await scratch.run('check', '-f', newTree, '--old', oldTree, '--stored', stored, '-o', 'json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({ storedObjects: 4, storedObjectErrors: 11, storedObjectWarnings: 6 });
    expect(report.storedObjects.crds).toHaveLength(1);
    const [crd] = report.storedObjects.crds;
    expect(crd).toMatchObject({
      name: 'mailboxes.mail.example.com',
      source: 'stored',
      objects: 4,
      location: { file: join(newTree, 'mailboxes.yaml'), line: 1 },
    });
    expect(counts(crd)).toEqual({
      fieldDroppedOnRead: 1,
      // ann's quota over the new maximum, bob's tier out of the enum, dan's duplicate in a list now a set.
      valueInvalid: 3,
      recreateRefused: 3,
      unchangedWriteRefused: 1,
      labelWriteRefused: 1,
      // bob's owner breaks the new lowercase rule: the old revision took a spec write, the new one refuses it.
      specWriteRefused: 1,
      readVersionUnserved: 1,
      defaultAddedOnRead: 4,
      storedVersionAssumed: 1,
      prunedFieldsMayReturn: 1,
    });
    // Errors, then warnings, then what crdgate cannot see.
    expect(
      crd.findings.map(
        (entry: { severity: string; unseen?: boolean }) => `${entry.severity}${entry.unseen ? ' unseen' : ''}`,
      ),
    ).toEqual([...Array(7).fill('error'), 'warning', 'warning unseen', 'warning unseen']);
    const recreate = crd.findings.find((entry: { rule: string }) => entry.rule === 'recreateRefused');
    expect(recreate.examples.map((example: any) => [example.object.name, example.path])).toEqual([
      ['ann', 'spec.quota'],
      ['bob', 'spec.tier'],
      ['dan', 'spec.forwardTo[1]'],
    ]);
    expect(report.storedObjects.unmatched).toEqual({});
  });

  it('names each CRD, rule and example in the text report', async () => {
    const result = await scratch.run('check', '-f', newTree, '--old', oldTree, '--stored', stored);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines).toContain(
      `stored objects of CustomResourceDefinition mailboxes.mail.example.com (${join(newTree, 'mailboxes.yaml')}:1 (document 1)) from --stored, through its new revision: 4 objects, 11 errors, 6 warnings`,
    );
    expect(lines).toContain('  error unchangedWriteRefused: 1');
    expect(lines).toContain(
      '    Mailbox mail/bob (mail.example.com/v1): a write that changes nothing is refused with 422: spec.owner (FieldValueInvalid)',
    );
    expect(lines.at(-2)).toMatch(
      /; judged 4 stored objects through the new revision of its CRD: 11 errors, 6 warnings$/,
    );
  });

  it('writes a JUnit testcase per CRD, failed as STORED_OBJECTS_BREAKING', async () => {
    const result = await scratch.run('check', '-f', newTree, '--old', oldTree, '--stored', stored, '-o', 'junit');
    expect(result.code).toBe(1);
    const xml = parseXml(result.stdout);
    const testcases = descendants(xml, 'testcase').map((testcase) => testcase.attributes.name);
    expect(testcases).toContain('stored mailboxes.mail.example.com objects from --stored');
    expect(descendants(xml, 'failure').map((failure) => failure.attributes.type)).toEqual([
      'CRD_REVISION_BREAKING',
      'STORED_OBJECTS_BREAKING',
    ]);
  });

  it('judges the old tree’s objects of a CRD that changed, without --stored', async () => {
    const result = await scratch.run('check', '-f', newTree, '--old', oldTree, '--old', manifests, '-o', 'json');
    expect(result.code).toBe(1);
    const [crd] = JSON.parse(result.stdout).storedObjects.crds;
    expect(crd).toMatchObject({
      source: 'old-tree',
      objects: 1,
      oldLocation: { file: join(oldTree, 'mailboxes.yaml') },
    });
    expect(counts(crd)).toEqual({
      fieldDroppedOnRead: 1,
      valueInvalid: 1,
      recreateRefused: 1,
      defaultAddedOnRead: 1,
      storedVersionAssumed: 1,
      prunedFieldsMayReturn: 1,
    });
  });

  it('weighs the revision’s rules against the objects: a rule no object is affected by is a warning that says so', async () => {
    const result = await scratch.run('check', '-f', newTree, '--old', oldTree, '--old', manifests, '-o', 'json');
    const [revision] = JSON.parse(result.stdout).crdRevisions;
    expect(revision.evidence).toEqual({ objects: 1, complete: true, policy: 'objects' });
    // ann's quota and spam filter are hit; no object of the old tree holds a tier the enum lost, a duplicate the
    // set refuses, or an owner the lowercase rule refuses; a version no longer served breaks its clients anyway.
    expect(revision.findings.map((finding: any) => [finding.rule, finding.severity, finding.noObjectAffected])).toEqual(
      [
        ['versionUnserved', 'error', undefined],
        ['validationRuleAdded', 'warning', 1],
        ['maximum', 'error', undefined],
        ['enum', 'warning', 1],
        ['existingFieldRemoval', 'error', undefined],
        ['listType', 'warning', 1],
      ],
    );
    const text = await scratch.run('check', '-f', newTree, '--old', oldTree, '--old', manifests);
    expect(text.stdout).toContain(
      '  warning enum (v1): spec.tier: enum values removed: ["legacy"]; no known object is affected (1 object judged, all there are), so a warning',
    );
    expect(text.stdout).toContain('(weighed against 1 stored object: 3 that no object is affected by are warnings)');
  });

  it('lets the rules alone decide with evidence: rules, and says how to give objects when there are none', async () => {
    const rules = await write('evidence/rules.yaml', 'evidence: rules\n');
    const result = await scratch.run(
      'check',
      '-f',
      newTree,
      '--old',
      oldTree,
      '--old',
      manifests,
      '--crd-rules',
      rules,
      '-o',
      'json',
    );
    const [revision] = JSON.parse(result.stdout).crdRevisions;
    expect(revision.evidence.policy).toBe('rules');
    expect(revision.findings.every((finding: any) => finding.severity === 'error')).toBe(true);
    const bare = await scratch.run('check', '-f', newTree, '--old', oldTree);
    expect(bare.stdout).toContain(
      '  note: the rules alone decide (no stored object of it judged): give its objects with --stored (`kubectl get mailboxes.mail.example.com -A -o yaml`), --from-cluster or the --old tree',
    );
  });

  it('passes objects that fare the same under the CRD, and counts kinds it has no CRD for', async () => {
    const objects = await write(
      'same/stored.yaml',
      [
        'apiVersion: mail.example.com/v1alpha1',
        'kind: Mailbox',
        'metadata: {name: hal, namespace: mail}',
        'spec: {quota: 7, owner: hal}',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: settings, namespace: mail}',
        '',
      ].join('\n'),
    );
    // No previous revision: the objects are judged against the tree's CRD itself.
    const result = await scratch.run('check', '-f', oldTree, '--stored', objects, '-o', 'json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.storedObjects.crds.map((crd: any) => [crd.objects, counts(crd)])).toEqual([
      [1, { storedVersionAssumed: 1 }],
    ]);
    expect(report.storedObjects.unmatched).toEqual({ ConfigMap: 1 });
  });

  it('sets stored-object rules with --crd-rules: another severity, or off', async () => {
    const rules = await write(
      'rules/rules.yaml',
      'rules:\n  defaultAddedOnRead: error\n  recreateRefused: off\n  storedVersionAssumed: off\n',
    );
    const result = await scratch.run(
      'check',
      '-f',
      newTree,
      '--old',
      oldTree,
      '--stored',
      stored,
      '--crd-rules',
      rules,
      '-o',
      'json',
    );
    expect(result.code).toBe(1);
    const [crd] = JSON.parse(result.stdout).storedObjects.crds;
    expect(crd.findings.map((entry: any) => [entry.rule, entry.severity, entry.count])).toEqual([
      ['fieldDroppedOnRead', 'error', 1],
      ['defaultAddedOnRead', 'error', 4],
      ['valueInvalid', 'error', 3],
      ['unchangedWriteRefused', 'error', 1],
      ['labelWriteRefused', 'error', 1],
      ['specWriteRefused', 'error', 1],
      ['readVersionUnserved', 'error', 1],
      ['prunedFieldsMayReturn', 'warning', 1],
    ]);
  });

  it('leaves the report as it was when there is nothing stored to judge', async () => {
    const result = await scratch.run('check', '-f', newTree, '--old', oldTree, '-o', 'json');
    const report = JSON.parse(result.stdout);
    expect(report.storedObjects).toBeUndefined();
    expect(report.summary.storedObjects).toBeUndefined();
  });

  it('refuses a --stored path that cannot be read or parsed, and standard input twice (exit 2)', async () => {
    const broken = await write('broken/stored.yaml', 'apiVersion: v1\nkind: List\nitems: [\n');
    const unparsable = await scratch.run('check', '-f', newTree, '--stored', broken);
    expect(unparsable.code).toBe(2);
    expect(unparsable.stderr).toContain('--stored');
    const missing = await scratch.run('check', '-f', newTree, '--stored', join(scratch.dir(), 'nowhere.yaml'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere.yaml');
    const twice = await scratch.run('check', '-f', '-', '--stored', '-');
    expect(twice.code).toBe(2);
  });
});

describe('docs/check.md, "The objects a revision must keep serving"', () => {
  it('lists every stored-object rule once, with its default severity', async () => {
    const page = await readFile(fileURLToPath(new URL('../../docs/check.md', import.meta.url)), 'utf8');
    const section = page.slice(page.indexOf('## The objects a revision must keep serving'));
    const rows = [...section.matchAll(/^\| `(\w+)` \| (error|warning) \|/gm)].map(([, rule, severity]) => [
      rule,
      severity,
    ]);
    expect(rows).toEqual(Object.entries(storedObjectRules).map(([rule, { severity }]) => [rule, severity]));
  });
});
