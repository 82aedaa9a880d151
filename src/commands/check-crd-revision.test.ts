import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { descendants, parseXml } from '../check/xml-elements.fixture.ts';
import { cliInTempDir } from '../cli-runner.fixture.ts';
import { widgetCrd } from '../crd-revision/crd-revision.fixture.ts';
import { crdRevisionRules, decidedByObjects, type CrdRevisionRule } from '../crd-revision/rules.ts';

// crdgate check --old compares every CRD both trees hold with its previous revision (src/crd-revision has a test
// per rule; here, what the command makes of the findings: reports, exit codes, the rule config).
const scratch = cliInTempDir('crdgate-check-crd-revision-');

async function write(path: string, objects: unknown[] | string): Promise<string> {
  const file = join(scratch.dir(), path);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, typeof objects === 'string' ? objects : objects.map((o) => stringify(o)).join('---\n'));
  return path;
}

/** The widget with its one version v1: a change to it is one finding, not also a difference between served versions. */
const freshCrd = (): any => {
  const crd: any = widgetCrd();
  crd.spec.versions = crd.spec.versions.filter((version: any) => version.name === 'v1');
  return crd;
};
const v1Spec = (crd: any) => crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'demo' },
  data: { a: '1' },
};

/** A revision that removes a field (an error) and adds a default (a warning); the CRD starts on line 9, after the ConfigMap's 7 and a separator. */
async function breakingRevision(folder: string): Promise<{ now: string; old: string }> {
  const revised = freshCrd();
  delete v1Spec(revised).properties.endpoint;
  v1Spec(revised).properties.mode.default = 'safe';
  const old = await write(`${folder}/old/crds.yaml`, [configMap, freshCrd()]);
  const now = await write(`${folder}/new/crds.yaml`, [configMap, revised]);
  return { now, old };
}

describe('crdgate check --old on CRD revisions', () => {
  it('reports each finding under its CRD, and fails on an error (text)', async () => {
    const { now, old } = await breakingRevision('text');
    const result = await scratch.run('check', '-f', now, '--old', old);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `${now}:9 (document 2): CustomResourceDefinition widgets.toys.example.com against its previous revision (${old}:9 (document 2)): 1 error, 1 warning`,
      '  note: the rules alone decide (no stored object of it judged): give its objects with --stored (`kubectl get widgets.toys.example.com -A -o yaml`), --from-cluster or the --old tree, and a finding no object is affected by becomes a warning',
      '  warning defaultAdded (v1): spec.mode: default "safe" added',
      '  error existingFieldRemoval (v1): spec.endpoint: removed (the API server prunes it on read and erases it on the next write)',
      'checked 0 objects: 0 allowed, 0 denied; 1 CustomResourceDefinition read; compared 1 CustomResourceDefinition with the previous revision: 1 error, 1 warning; skipped 1 of kinds no contract or CRD declares (ConfigMap 1)',
      '',
    ]);
  });

  it('puts rule, severity, version, path, old and new in the JSON report', async () => {
    const { now, old } = await breakingRevision('json');
    const result = await scratch.run('check', '-f', now, '--old', old, '-o', 'json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toMatchObject({ crdRevisions: 1, crdRevisionErrors: 1, crdRevisionWarnings: 1 });
    expect(report.crdRevisions).toEqual([
      {
        name: 'widgets.toys.example.com',
        location: { file: now, document: 2, line: 9 },
        oldLocation: { file: old, document: 2, line: 9 },
        findings: [
          {
            rule: 'defaultAdded',
            severity: 'warning',
            version: 'v1',
            path: 'spec.mode',
            new: 'safe',
            message: expect.any(String),
          },
          {
            rule: 'existingFieldRemoval',
            severity: 'error',
            version: 'v1',
            path: 'spec.endpoint',
            old: { type: 'string', format: 'hostname', nullable: true },
            message: expect.any(String),
          },
        ],
      },
    ]);
  });

  it('writes a JUnit testcase per compared CRD, failed as CRD_REVISION_BREAKING with its errors', async () => {
    const { now, old } = await breakingRevision('junit');
    const result = await scratch.run('check', '-f', now, '--old', old, '-o', 'junit');
    expect(result.code).toBe(1);
    const xml = parseXml(result.stdout);
    // The ConfigMap is skipped, not a testcase: the compared CRD is the one test.
    expect(xml.attributes).toMatchObject({ tests: '1', failures: '1' });
    const testcases = descendants(xml, 'testcase');
    expect(testcases.map((t) => t.attributes.name)).toEqual([
      `CustomResourceDefinition widgets.toys.example.com revision ${now}:9 (document 2)`,
    ]);
    const failures = descendants(xml, 'failure');
    expect(failures.map((f) => [f.attributes.type, f.text])).toEqual([
      ['CRD_REVISION_BREAKING', expect.stringMatching(/^error existingFieldRemoval \(v1\): spec\.endpoint: removed/)],
    ]);
    expect(descendants(testcases[0]!, 'system-out').map((s) => s.text)).toEqual([
      'warning defaultAdded (v1): spec.mode: default "safe" added',
    ]);
  });

  it('passes a revision with warnings only, and one that changes nothing', async () => {
    const widened = freshCrd();
    v1Spec(widened).properties.mode.enum.push('turbo');
    const old = await write('warn/old.yaml', [freshCrd()]);
    const now = await write('warn/new.yaml', [widened]);
    const warned = await scratch.run('check', '-f', now, '--old', old);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain('  warning enumValueAdded (v1): spec.mode: enum values added: ["turbo"]\n');
    const same = await scratch.run('check', '-f', old, '--old', old);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain(
      `${old}:1 (document 1): CustomResourceDefinition widgets.toys.example.com against its previous revision (${old}:1 (document 1)): no change a rule reports\n`,
    );
  });

  it('compares only a CRD both trees hold, by metadata.name', async () => {
    const renamed = freshCrd();
    renamed.metadata.name = 'gadgets.toys.example.com';
    Object.assign(renamed.spec.names, {
      plural: 'gadgets',
      singular: 'gadget',
      kind: 'Gadget',
      listKind: 'GadgetList',
      shortNames: ['gd'],
    });
    const old = await write('other/old.yaml', [freshCrd()]);
    const now = await write('other/new.yaml', [renamed]);
    const result = await scratch.run('check', '-f', now, '--old', old, '-o', 'json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).crdRevisions).toEqual([]);
  });

  it('sets rules to warning or off with --crd-rules', async () => {
    const { now, old } = await breakingRevision('config');
    const rules = await write('config/rules.yaml', 'rules:\n  existingFieldRemoval: warning\n  defaultAdded: off\n');
    const result = await scratch.run('check', '-f', now, '--old', old, '--crd-rules', rules, '-o', 'json');
    expect(result.code).toBe(0);
    const [revision] = JSON.parse(result.stdout).crdRevisions;
    expect(revision.findings.map((f: any) => [f.rule, f.severity])).toEqual([['existingFieldRemoval', 'warning']]);
    const stricter = await write(
      'config/stricter.json',
      '{"rules": {"defaultAdded": "error", "existingFieldRemoval": "off"}}',
    );
    const strict = await scratch.run('check', '-f', now, '--old', old, '--crd-rules', stricter, '-o', 'json');
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout).crdRevisions[0].findings.map((f: any) => [f.rule, f.severity])).toEqual([
      ['defaultAdded', 'error'],
    ]);
  });

  it.each([
    ['an unknown rule', 'rules:\n  existingFieldRemovel: off\n', 'rules.existingFieldRemovel: no such rule'],
    ['an unknown setting', 'rules:\n  enum: Warn\n', 'rules.enum: must be error, warning or off, got "Warn"'],
  ])('stops with exit 2 on a --crd-rules file with %s, naming it', async (_, text, named) => {
    const { now, old } = await breakingRevision('bad-config');
    const rules = await write('bad-config/rules.yaml', text);
    const result = await scratch.run('check', '-f', now, '--old', old, '--crd-rules', rules);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`--crd-rules ${rules}: ${named}`);
  });

  it('stops with exit 2 on a --crd-rules file that cannot be read', async () => {
    const { now, old } = await breakingRevision('missing-config');
    const result = await scratch.run('check', '-f', now, '--old', old, '--crd-rules', 'missing-config/none.yaml');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--crd-rules missing-config/none.yaml: cannot read: ENOENT');
  });
});

describe('docs/check.md, "Checking a CRD revision"', () => {
  const repo = fileURLToPath(new URL('../../', import.meta.url));
  const section = async () => {
    const page = await readFile(join(repo, 'docs/check.md'), 'utf8');
    const start = page.indexOf('## Checking a CRD revision');
    const next = page.indexOf('\n## ', start + 1);
    return page.slice(start, next === -1 ? undefined : next);
  };

  it('shows the config file its example runs with, and the command takes it', async () => {
    const shown = /^```yaml\n([\s\S]*?)^```$/m.exec(await section())![1]!;
    expect(shown).toBe(await readFile(join(repo, 'test/fixtures/check/crd-revision/rules.yaml'), 'utf8'));
    const rules = await write('docs/rules.yaml', shown);
    const { now, old } = await breakingRevision('docs');
    const result = await scratch.run('check', '-f', now, '--old', old, '--crd-rules', rules, '-o', 'json');
    expect(result.stderr).toBe('');
  });

  it('shows an evidence config that the command takes, and names the rules the objects never decide', async () => {
    const text = await section();
    const shown = /^```yaml\n(# The rules alone decide[\s\S]*?)^```$/m.exec(text)![1]!;
    const rules = await write('docs-evidence/rules.yaml', shown);
    const { now, old } = await breakingRevision('docs-evidence');
    const result = await scratch.run('check', '-f', now, '--old', old, '--crd-rules', rules, '-o', 'json');
    expect(result.stderr).toBe('');
    const standing = /the rules whose findings stand whatever the objects hold[^:]*: ([^.]*)\./s.exec(text)![1]!;
    expect([...standing.matchAll(/`(\w+)`/g)].map(([, rule]) => rule)).toEqual(
      Object.entries(crdRevisionRules)
        .filter(([rule, { severity }]) => severity === 'error' && !decidedByObjects.has(rule as CrdRevisionRule))
        .map(([rule]) => rule),
    );
  });

  it('lists every rule once, with its default severity', async () => {
    const rows = [...(await section()).matchAll(/^\| `(\w+)` \| (error|warning) \|/gm)].map(([, rule, severity]) => [
      rule,
      severity,
    ]);
    expect(rows).toEqual(Object.entries(crdRevisionRules).map(([rule, { severity }]) => [rule, severity]));
  });
});
