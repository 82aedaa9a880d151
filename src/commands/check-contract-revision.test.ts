import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { cliInTempDir } from '../cli-runner.fixture.ts';
import { widgetCrd } from '../crd-revision/crd-revision.fixture.ts';

// crdgate check --contract NEW --old-contract OLD: the CRDs the two revisions of a contract render, compared rule
// by rule (src/crd-revision has a test per rule; here, how the command pairs contracts and reports them).
const scratch = cliInTempDir('crdgate-check-contract-revision-');

/** The widget with its one version v1, as a contract takes it from its CRD (fromCrd). */
const widget = (): any => {
  const crd: any = widgetCrd();
  crd.spec.versions = crd.spec.versions.filter((version: any) => version.name === 'v1');
  delete crd.spec.conversion;
  return crd;
};
const specOf = (crd: any) => crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;

/** A contract module made from `crd` in FOLDER/widget.ts, beside the CRD it reads; returns the module's path. */
async function contractModule(folder: string, crd: unknown): Promise<string> {
  const dir = join(scratch.dir(), folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'crd.yaml'), stringify(crd));
  const crdgate = JSON.stringify(new URL('../index.ts', import.meta.url).href);
  await writeFile(
    join(dir, 'widget.ts'),
    `import { defineContract, fromCrd, readCrdFile } from ${crdgate};\n` +
      `export default () => defineContract(fromCrd(readCrdFile(new URL('./crd.yaml', import.meta.url))));\n`,
  );
  return `${folder}/widget.ts`;
}

/** A revision that removes a field (an error) and adds a default (a warning). */
async function breakingRevision(folder: string): Promise<{ now: string; old: string }> {
  const revised = widget();
  delete specOf(revised).properties.endpoint;
  specOf(revised).properties.mode.default = 'safe';
  return { old: await contractModule(`${folder}/old`, widget()), now: await contractModule(`${folder}/new`, revised) };
}

describe('crdgate check --contract --old-contract', () => {
  it('compares the CRDs the two revisions render, naming the modules, and fails on an error', async () => {
    const { now, old } = await breakingRevision('text');
    const result = await scratch.run('check', '--contract', now, '--old-contract', old);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `contract ${now}: CustomResourceDefinition widgets.toys.example.com against its previous revision (contract ${old}): 1 error, 1 warning`,
      '  note: the rules alone decide (no stored object of it judged): give its objects with --stored (`kubectl get widgets.toys.example.com -A -o yaml`), --from-cluster or the --old tree, and a finding no object is affected by becomes a warning',
      '  warning defaultAdded (v1): spec.mode: default "safe" added',
      '  error existingFieldRemoval (v1): spec.endpoint: removed (the API server prunes it on read and erases it on the next write)',
      'checked 0 objects: 0 allowed, 0 denied; compared 1 CustomResourceDefinition with the previous revision: 1 error, 1 warning',
      '',
    ]);
  });

  it('says in the JSON report that the revision is a contract', async () => {
    const { now, old } = await breakingRevision('json');
    const result = await scratch.run('check', '--contract', now, '--old-contract', old, '-o', 'json');
    expect(result.code).toBe(1);
    const [revision] = JSON.parse(result.stdout).crdRevisions;
    expect(revision).toMatchObject({
      name: 'widgets.toys.example.com',
      from: 'contract',
      location: { file: now },
      oldLocation: { file: old },
    });
    expect(revision.findings.map((f: any) => [f.rule, f.severity, f.path])).toEqual([
      ['defaultAdded', 'warning', 'spec.mode'],
      ['existingFieldRemoval', 'error', 'spec.endpoint'],
    ]);
  });

  it('passes a contract against itself, and takes --crd-rules', async () => {
    const { now, old } = await breakingRevision('same');
    const same = await scratch.run('check', '--contract', old, '--old-contract', old);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain(
      `contract ${old}: CustomResourceDefinition widgets.toys.example.com against its previous revision (contract ${old}): no change a rule reports\n`,
    );
    await writeFile(join(scratch.dir(), 'same/rules.yaml'), 'rules:\n  existingFieldRemoval: warning\n');
    const relaxed = await scratch.run(
      'check',
      '--contract',
      now,
      '--old-contract',
      old,
      '--crd-rules',
      'same/rules.yaml',
    );
    expect(relaxed.code).toBe(0);
  });

  it('pairs contracts by the CRD they render, and compares the tree beside them', async () => {
    const { now, old } = await breakingRevision('tree');
    const other = widget();
    other.metadata.name = 'gadgets.toys.example.com';
    Object.assign(other.spec.names, {
      plural: 'gadgets',
      singular: 'gadget',
      kind: 'Gadget',
      listKind: 'GadgetList',
      shortNames: ['gd'],
    });
    const gadget = await contractModule('tree/gadget', other);
    await writeFile(
      join(scratch.dir(), 'tree/widget.yaml'),
      stringify({ apiVersion: 'toys.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 } }),
    );
    const result = await scratch.run(
      'check',
      '-f',
      'tree/widget.yaml',
      '--contract',
      gadget,
      '--contract',
      now,
      '--old-contract',
      old,
      '-o',
      'json',
    );
    const report = JSON.parse(result.stdout);
    // The gadget has no previous revision; the widget is decided by its new contract, and compared with its old one.
    expect(report.crdRevisions.map((r: any) => [r.name, r.location.file])).toEqual([['widgets.toys.example.com', now]]);
    expect(report.objects.map((o: any) => [o.name, o.allowed])).toEqual([['w', true]]);
  });

  it('stops with exit 2 on --old-contract without --contract, and on a module that is not there, naming the flag', async () => {
    const alone = await scratch.run('check', '--old-contract', 'none/widget.ts');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--old-contract needs --contract MODULE');
    const { now } = await breakingRevision('missing');
    const missing = await scratch.run('check', '--contract', now, '--old-contract', './missing/old/none.ts');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--old-contract ./missing/old/none.ts: no such file');
  });
});

describe('two OLM bundles of two revisions of a contract', () => {
  it('replaces the earlier CSV, and crdgate check --old on the bundles runs the revision rules on their CRDs', async () => {
    const { now, old } = await breakingRevision('bundles');
    const bundle = (module: string, version: string, out: string, ...more: string[]) =>
      scratch.run(
        'manifests',
        ...['--format', 'olm', '--contract', module, '--image', 'registry.example/widgets:' + version],
        ...['--package', 'widgets', '--version', version, '--out', out, ...more],
      );
    expect((await bundle(old, '1.0.0', 'bundles/1.0.0')).code).toBe(0);
    expect((await bundle(now, '1.1.0', 'bundles/1.1.0', '--replaces', '1.0.0')).code).toBe(0);
    const csvOf = async (version: string) =>
      parse(
        await readFile(
          join(scratch.dir(), 'bundles', version, 'manifests', 'widgets.clusterserviceversion.yaml'),
          'utf8',
        ),
      );
    expect((await csvOf('1.0.0')).spec.replaces).toBeUndefined();
    expect((await csvOf('1.1.0')).spec.replaces).toBe((await csvOf('1.0.0')).metadata.name);
    const result = await scratch.run(
      'check',
      ...['-f', 'bundles/1.1.0/manifests', '--old', 'bundles/1.0.0/manifests', '-o', 'json'],
    );
    expect(result.code).toBe(1);
    const [revision] = JSON.parse(result.stdout).crdRevisions;
    expect(revision.name).toBe('widgets.toys.example.com');
    expect(revision.findings.map((f: any) => [f.rule, f.severity, f.path]).sort()).toEqual([
      ['defaultAdded', 'warning', 'spec.mode'],
      ['existingFieldRemoval', 'error', 'spec.endpoint'],
    ]);
  });
});
