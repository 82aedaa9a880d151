import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { descendants, parseXml } from '../check/xml-elements.fixture.ts';
import { cliInTempDir, runCli } from '../cli-runner.fixture.ts';

// The fixture trees are described in test/fixtures/check/README.md; what each object must get is known from
// there, not from running the command.
const fixtures = fileURLToPath(new URL('../../test/fixtures/check/', import.meta.url));
const inFixtures = (...argv: string[]) => runCli(fixtures, ...argv);
const scratch = cliInTempDir('crdgate-check-');

const geoDatabase = (
  name: string,
  size: string,
  extra: { annotations?: Record<string, string>; status?: unknown; apiVersion?: string } = {},
) => ({
  apiVersion: extra.apiVersion ?? 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name, namespace: 'maps', ...(extra.annotations ? { annotations: extra.annotations } : {}) },
  // v1beta1 writes these fields as v1 does.
  spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size } },
  ...(extra.status ? { status: extra.status } : {}),
});

/** The text report as paragraphs: each object's first line, and the indented lines under it. */
function paragraphs(report: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of report.split('\n')) {
    if (line.startsWith('  ') && current) current.push(line.trim());
    else if (/ (CREATE|UPDATE|DELETE)( in state \w+ \([^)]*\))?: (allowed|denied)/.test(line))
      result.set(line, (current = []));
    else current = undefined;
  }
  return result;
}

function paragraphAbout(report: string, name: string): { header: string; lines: string[] } {
  const found = [...paragraphs(report)].filter(([header]) => header.includes(`/${name} (`));
  expect(found, `one paragraph about ${name}`).toHaveLength(1);
  return { header: found[0]![0], lines: found[0]![1] };
}

const jsonReport = (stdout: string) =>
  JSON.parse(stdout) as { summary: any; objects: any[]; notObjects: any[]; invalid: any[]; empty: any[] };
const byName = (objects: any[], name: string) => {
  const found = objects.filter((o) => o.name === name);
  expect(found, name).toHaveLength(1);
  return found[0];
};

describe('crdgate check on a manifest tree', () => {
  it('decides every GeoDatabase in every version, skips other kinds, and names file, line and document (text)', async () => {
    const result = await inFixtures('check', '-f', 'tree');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect([...paragraphs(result.stdout).keys()]).toHaveLength(6);

    for (const name of ['v1-valid', 'v1beta1-valid', 'v1alpha1-valid'])
      expect(paragraphAbout(result.stdout, name).header).toMatch(/ CREATE: allowed$/);
    const v1 = paragraphAbout(result.stdout, 'v1-invalid');
    expect(v1.header).toBe(
      'tree/apps/geo/databases.yaml:31 (document 3): GeoDatabase maps/v1-invalid (geo.example.com/v1) CREATE: denied OBJECT_INVALID',
    );
    // The API server's answer (the CRD bounds the replicas, and its rule in place of crdgate's quantity format refuses
    // the size), then what the webhook refuses next (its invariants).
    expect(v1.lines).toEqual([
      expect.stringMatching(/^spec\.readReplicas: Invalid value: 20/),
      'spec.storage.size: Invalid value: "50GB": must be a Kubernetes quantity such as 500m, 64Mi, 2Gi or 1.5e3',
      expect.stringMatching(/^then the webhook: spec\.postgres\.version: PostgreSQL major 18 is not supported/),
      expect.stringMatching(/^then the webhook: spec\.postgres\.postgis: /),
    ]);
    const beta = paragraphAbout(result.stdout, 'v1beta1-invalid');
    expect(beta.header).toMatch(
      /^tree\/apps\/legacy\/v1beta1\.yml:14 \(document 2\): .*\(geo\.example\.com\/v1beta1\) CREATE: denied OBJECT_INVALID$/,
    );
    expect(beta.lines).toEqual([expect.stringMatching(/^spec\.caches\[0\]\.name: Invalid value: "Tiles_1"/)]);
    const alpha = paragraphAbout(result.stdout, 'v1alpha1-invalid');
    expect(alpha.header).toMatch(
      /^tree\/apps\/legacy\/alpha\/list\.json:17 \(document 1, items\[2\]\): .*\(geo\.example\.com\/v1alpha1\) CREATE: denied OBJECT_INVALID$/,
    );
    expect(alpha.lines).toContainEqual(expect.stringMatching(/^spec\.storageGB: Invalid value: 0/));
    // The defaults the mutating webhook would set, in the version the object is written in.
    expect(paragraphAbout(result.stdout, 'v1alpha1-valid').lines).toEqual(
      expect.arrayContaining(['default spec.replicas: 0', 'default spec.cacheMB: 0']),
    );
    expect(paragraphAbout(result.stdout, 'v1-valid').lines).toContain('default spec.readReplicas: 0');

    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(
      'checked 6 objects: 3 allowed, 3 denied (CREATE 6); skipped 4 of kinds no contract declares (ConfigMap 2, Deployment.apps 2); 1 document without apiVersion and kind',
    );
  });

  it('reports the same as JSON with -o json', async () => {
    const result = await inFixtures('check', '-f', 'tree', '-o', 'json');
    expect(result.code).toBe(1);
    const report = jsonReport(result.stdout);
    expect(report.summary).toEqual({
      checked: 6,
      allowed: 3,
      denied: 3,
      operations: { CREATE: 6, UPDATE: 0, DELETE: 0 },
      skipped: 4,
      skippedKinds: { ConfigMap: 2, 'Deployment.apps': 2 },
      crds: 0,
      notObjects: 1,
      invalid: 0,
      duplicates: 0,
      empty: 0,
      emptyReasons: {},
      crdRevisions: 0,
      crdRevisionErrors: 0,
      crdRevisionWarnings: 0,
    });
    expect(report.notObjects).toEqual([{ file: 'tree/platform/values.yaml', document: 1, line: 2 }]);
    const invalid = byName(report.objects, 'v1-invalid');
    expect(invalid).toMatchObject({
      location: { file: 'tree/apps/geo/databases.yaml', document: 3, line: 31 },
      operation: 'CREATE',
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      namespace: 'maps',
      allowed: false,
      code: 'OBJECT_INVALID',
    });
    expect(invalid.causes.map((c: any) => [c.field, c.type])).toEqual([
      ['spec.readReplicas', 'FieldValueInvalid'],
      ['spec.storage.size', 'FieldValueInvalid'],
    ]);
    expect(invalid.next.map((c: any) => [c.field, c.type])).toEqual([
      ['spec.postgres.version', 'FieldValueNotSupported'],
      ['spec.postgres.postgis', 'FieldValueNotSupported'],
    ]);
    expect(invalid).not.toHaveProperty('object');
    const alpha = byName(report.objects, 'v1alpha1-valid');
    expect(alpha).toMatchObject({
      location: { file: 'tree/apps/legacy/alpha/list.json', document: 1, item: 0, line: 5 },
      allowed: true,
      code: 'ALLOWED',
    });
    expect(alpha.defaults).toContainEqual({ field: 'spec.replicas', value: 0 });
    expect(byName(report.objects, 'v1beta1-invalid').causes).toEqual([
      expect.objectContaining({ field: 'spec.caches[0].name', type: 'FieldValueInvalid' }),
    ]);
  });

  it('writes one JUnit testcase per decided object, a failure per denial, with -o junit', async () => {
    const result = await inFixtures('check', '-f', 'tree', '-o', 'junit');
    expect(result.code).toBe(1);
    const xml = result.stdout;
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="crdgate check" tests="6" failures="3"/,
    );
    const suites = [...xml.matchAll(/<testsuite name="([^"]*)" tests="(\d+)" failures="(\d+)"/g)].map((m) => [
      m[1],
      Number(m[2]),
      Number(m[3]),
    ]);
    expect(suites).toEqual([
      ['tree/apps/geo/databases.yaml', 2, 1],
      ['tree/apps/legacy/alpha/list.json', 2, 1],
      ['tree/apps/legacy/v1beta1.yml', 2, 1],
    ]);
    const testcases = [
      ...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g),
    ];
    expect(testcases).toHaveLength(6);
    const failureOf = (name: string) =>
      testcases.find(
        (m) => m[2]!.startsWith(`GeoDatabase legacy/${name} `) || m[2]!.startsWith(`GeoDatabase maps/${name} `),
      )![4] ?? '';
    expect(failureOf('v1beta1-valid')).not.toContain('<failure');
    const failure = /<failure type="(\w+)" message="([^"]*)">([^<]*)<\/failure>/.exec(failureOf('v1beta1-invalid'));
    expect(failure?.[1]).toBe('OBJECT_INVALID');
    // Quotes in the message are escaped, so the attribute ends where it should.
    expect(failure?.[2]).toContain('&quot;Tiles_1&quot;');
    expect(failure?.[3]).toMatch(/^spec\.caches\[0\]\.name: Invalid value: "Tiles_1"/);
    expect(failureOf('v1-valid')).toMatch(/<system-out>[^<]*default spec\.readReplicas: 0/);
  });
});

describe('crdgate check --old: the transition a pull request would make', () => {
  it('judges changes as UPDATEs from the steady state, new objects as CREATEs, removed ones as DELETEs', async () => {
    const result = await inFixtures('check', '-f', 'revisions/new', '--old', 'revisions/old', '-o', 'json');
    expect(result.code).toBe(1);
    const { summary, objects } = jsonReport(result.stdout);
    expect(summary).toMatchObject({
      checked: 4,
      allowed: 2,
      denied: 2,
      operations: { CREATE: 1, UPDATE: 2, DELETE: 1 },
    });
    expect(byName(objects, 'roads')).toMatchObject({
      operation: 'UPDATE',
      allowed: true,
      state: { state: 'Ready', source: 'contract' },
      location: { file: 'revisions/new/roads.yaml' },
      oldLocation: { file: 'revisions/old/roads.yaml' },
    });
    const shrinking = byName(objects, 'shrinking');
    expect(shrinking).toMatchObject({
      operation: 'UPDATE',
      allowed: false,
      code: 'CHANGE_FORBIDDEN',
      state: { state: 'Ready' },
    });
    expect(shrinking.causes).toEqual([
      expect.objectContaining({
        field: 'spec.storage.size',
        type: 'FieldValueForbidden',
        message: expect.stringContaining('volumes cannot shrink'),
      }),
    ]);
    expect(byName(objects, 'archive')).toMatchObject({
      operation: 'DELETE',
      allowed: false,
      code: 'DELETION_PROTECTED',
      location: { file: 'revisions/old/archive.yaml', document: 1 },
    });
    expect(byName(objects, 'fresh')).toMatchObject({ operation: 'CREATE', allowed: true });

    const text = await inFixtures('check', '-f', 'revisions/new', '--old', 'revisions/old');
    expect(paragraphAbout(text.stdout, 'shrinking').header).toMatch(
      / UPDATE in state Ready \(from the contract's steady state\): denied CHANGE_FORBIDDEN$/,
    );
    expect(paragraphAbout(text.stdout, 'shrinking').lines[0]).toBe(
      'previous revision: revisions/old/shrinking.yaml:1 (document 1)',
    );
  });

  it('exits 0 when every change is allowed', async () => {
    const result = await inFixtures(
      'check',
      '-f',
      'revisions/new/roads.yaml',
      '-f',
      'revisions/new/fresh.yaml',
      '--old',
      'revisions/old/roads.yaml',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^checked 2 objects: 2 allowed, 0 denied \(CREATE 1, UPDATE 1\)$/m);
  });

  it('takes the state from --state when the manifests record none, and from the old status when they do', async () => {
    // Pending: nothing is provisioned yet, so even shrinking is allowed.
    const pending = await inFixtures(
      'check',
      '-f',
      'revisions/new/shrinking.yaml',
      '--old',
      'revisions/old/shrinking.yaml',
      '--state',
      'Pending',
      '-o',
      'json',
    );
    expect(pending.code).toBe(0);
    expect(byName(jsonReport(pending.stdout).objects, 'shrinking')).toMatchObject({
      allowed: true,
      state: { state: 'Pending', source: 'flag' },
    });

    await writeFile(
      join(scratch.dir(), 'old-upgrading.yaml'),
      stringify(geoDatabase('roads', '20Gi', { status: { phase: 'Upgrading' } })),
    );
    await writeFile(join(scratch.dir(), 'new-roads.yaml'), stringify(geoDatabase('roads', '30Gi')));
    const upgrading = await scratch.run(
      'check',
      '-f',
      'new-roads.yaml',
      '--old',
      'old-upgrading.yaml',
      '--state',
      'Pending',
      '-o',
      'json',
    );
    expect(upgrading.code).toBe(1);
    expect(byName(jsonReport(upgrading.stdout).objects, 'roads')).toMatchObject({
      code: 'CHANGE_FORBIDDEN',
      state: { state: 'Upgrading', source: 'status' },
    });
  });

  it('judges a change no change kind names as the webhook does: by the state the old status records, the override lifting it where the state says', async () => {
    const contract = fileURLToPath(new URL('../policy/message-broker.fixture.ts', import.meta.url));
    const broker = (metricsEnabled: boolean, state?: string, annotations?: Record<string, string>) => ({
      apiVersion: 'messaging.example.com/v1',
      kind: 'MessageBroker',
      metadata: { name: 'events', ...(annotations ? { annotations } : {}) },
      spec: { brokers: 3, resources: { memory: '1Gi' }, metricsEnabled },
      ...(state ? { status: { lifecycle: { state } } } : {}),
    });
    await writeFile(join(scratch.dir(), 'broker-upgrading.yaml'), stringify(broker(false, 'Upgrading')));
    await writeFile(join(scratch.dir(), 'broker-degraded.yaml'), stringify(broker(false, 'Degraded')));
    await writeFile(join(scratch.dir(), 'broker-metrics.yaml'), stringify(broker(true)));
    await writeFile(
      join(scratch.dir(), 'broker-metrics-overridden.yaml'),
      stringify(
        broker(true, undefined, { 'messaging.example.com/override-transitions': 'INC-9: metrics for the incident' }),
      ),
    );

    const refused = await scratch.run(
      'check',
      '-f',
      'broker-metrics.yaml',
      '--old',
      'broker-upgrading.yaml',
      '--contract',
      contract,
      '-o',
      'json',
    );
    expect(refused.code).toBe(1);
    expect(byName(jsonReport(refused.stdout).objects, 'events')).toMatchObject({
      operation: 'UPDATE',
      allowed: false,
      code: 'CHANGE_FORBIDDEN',
      state: { state: 'Upgrading', source: 'status' },
    });
    const text = await scratch.run(
      'check',
      '-f',
      'broker-metrics-overridden.yaml',
      '--old',
      'broker-upgrading.yaml',
      '--contract',
      contract,
    );
    expect(text.code).toBe(1);
    // A cluster-scoped object: its header names it without a namespace.
    expect(text.stdout).toContain(
      '\n  spec.metricsEnabled: changing false to true is refused while the broker cluster is Upgrading: no change kind names this field (such changes are refused there, override or not)\n',
    );

    const degraded = await scratch.run(
      'check',
      '-f',
      'broker-metrics.yaml',
      '--old',
      'broker-degraded.yaml',
      '--contract',
      contract,
    );
    expect(degraded.code).toBe(1);
    expect(degraded.stdout).toContain(
      '\n  spec.metricsEnabled: changing false to true is not allowed while the broker cluster is Degraded: no change kind names this field (such changes need messaging.example.com/override-transitions with a reason)\n',
    );
    const overridden = await scratch.run(
      'check',
      '-f',
      'broker-metrics-overridden.yaml',
      '--old',
      'broker-degraded.yaml',
      '--contract',
      contract,
    );
    expect(overridden.code).toBe(0);
    expect(overridden.stdout).toMatch(
      /: MessageBroker events \(messaging\.example\.com\/v1\) UPDATE in state Degraded \(from its status\): allowed$/m,
    );
    expect(overridden.stdout).toContain(
      '\n  warning: messaging.example.com/override-transitions: overriding changes no change kind names while the broker cluster is Degraded; reason: "INC-9: metrics for the incident"\n',
    );
    // The old manifest records no state: the steady state, Running, where such changes are free.
    await writeFile(join(scratch.dir(), 'broker-unrecorded.yaml'), stringify(broker(false)));
    expect(
      (
        await scratch.run(
          'check',
          '-f',
          'broker-metrics.yaml',
          '--old',
          'broker-unrecorded.yaml',
          '--contract',
          contract,
        )
      ).code,
    ).toBe(0);
  });

  it('pairs an object across versions, converting the old one as the API server would', async () => {
    await writeFile(
      join(scratch.dir(), 'old-beta.yaml'),
      stringify(geoDatabase('roads', '20Gi', { apiVersion: 'geo.example.com/v1beta1' })),
    );
    await writeFile(join(scratch.dir(), 'new-small.yaml'), stringify(geoDatabase('roads', '10Gi')));
    const grown = await scratch.run('check', '-f', 'new-roads.yaml', '--old', 'old-beta.yaml');
    expect(grown.code).toBe(0);
    expect(grown.stdout).toMatch(/maps\/roads \(geo\.example\.com\/v1\) UPDATE in state Ready .*: allowed/);
    const shrunk = await scratch.run('check', '-f', 'new-small.yaml', '--old', 'old-beta.yaml');
    expect(shrunk.code).toBe(1);
    expect(shrunk.stdout).toContain('spec.storage.size: shrinking storage from 20Gi to 10Gi is unsupported');
  });

  it('denies a change it cannot judge because the old object does not convert, rather than skip the machine', async () => {
    await writeFile(
      join(scratch.dir(), 'old-v9.yaml'),
      stringify(geoDatabase('roads', '40Gi', { apiVersion: 'geo.example.com/v9' })),
    );
    const result = await scratch.run('check', '-f', 'new-small.yaml', '--old', 'old-v9.yaml', '-o', 'json');
    expect(result.code).toBe(1);
    expect(byName(jsonReport(result.stdout).objects, 'roads')).toMatchObject({
      operation: 'UPDATE',
      allowed: false,
      code: 'OLD_OBJECT_UNCONVERTIBLE',
      message: expect.stringContaining('geo.example.com/v9'),
    });
  });
});

describe('crdgate check, more', () => {
  it('denies an unknown kind of a group whose CRDs crdgate owns, with or without --strict-kinds: never skipped', async () => {
    await writeFile(join(scratch.dir(), 'typo.yaml'), stringify({ ...geoDatabase('typo', '1Gi'), kind: 'GeoDatabse' }));
    for (const flags of [[], ['--strict-kinds']]) {
      const result = await scratch.run('check', '-f', 'typo.yaml', ...flags, '-o', 'json');
      expect(result.code).toBe(1);
      expect(byName(jsonReport(result.stdout).objects, 'typo')).toMatchObject({
        allowed: false,
        code: 'KIND_UNKNOWN',
        message: expect.stringContaining('kind GeoDatabse in group geo.example.com'),
      });
      expect(jsonReport(result.stdout).summary.skipped).toBe(0);
    }
  });

  it('decides another kind of that group by its CRD in the tree, never skipped: exit 0, then 1 for an invalid one', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'geobackups.geo.example.com' },
      spec: {
        group: 'geo.example.com',
        scope: 'Namespaced',
        names: { kind: 'GeoBackup', plural: 'geobackups' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { database: { type: 'string' } } } },
              },
            },
          },
        ],
      },
    };
    const backup = (name: string, database: unknown) => ({
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoBackup',
      metadata: { name, namespace: 'maps' },
      spec: { database },
    });
    await writeFile(
      join(scratch.dir(), 'backups.yaml'),
      [crd, backup('nightly', 'roads')].map((o) => stringify(o)).join('---\n'),
    );
    const allowed = await scratch.run('check', '-f', 'backups.yaml', '-o', 'json');
    expect(allowed.code).toBe(0);
    expect(jsonReport(allowed.stdout).objects).toMatchObject([{ kind: 'GeoBackup', code: 'ALLOWED' }]);
    expect(jsonReport(allowed.stdout).summary.skipped).toBe(0);
    await writeFile(
      join(scratch.dir(), 'backups.yaml'),
      [crd, backup('broken', 7)].map((o) => stringify(o)).join('---\n'),
    );
    const denied = await scratch.run('check', '-f', 'backups.yaml', '-o', 'json');
    expect(denied.code).toBe(1);
    expect(jsonReport(denied.stdout).objects).toMatchObject([{ kind: 'GeoBackup', code: 'OBJECT_INVALID' }]);
  });

  it('fails on the second of two manifests of the same object, and judges it all the same', async () => {
    await writeFile(
      join(scratch.dir(), 'twice.yaml'),
      [geoDatabase('twin', '1Gi'), geoDatabase('twin', '2Gi')].map((o) => stringify(o)).join('---\n'),
    );
    const result = await scratch.run('check', '-f', 'twice.yaml', '-o', 'json');
    expect(result.code).toBe(1);
    const { objects } = jsonReport(result.stdout);
    expect(objects.map((o) => [o.location.document, o.operation, o.code, o.duplicateOf?.document])).toEqual([
      [1, 'CREATE', 'ALLOWED', undefined],
      [2, 'CREATE', 'ALLOWED', 1],
    ]);
    const text = await scratch.run('check', '-f', 'twice.yaml');
    expect(text.stdout).toContain(
      '  duplicate: the same object is at twice.yaml:1 (document 1) already; the API server would apply both, the later one winning (OBJECT_DUPLICATE)',
    );
    expect(text.stdout).toContain('1 object in the tree a second time (OBJECT_DUPLICATE)');
  });

  it('takes a namespaced object whose manifest names no namespace to be in default, or in -n, so a namespace written out is no new object', async () => {
    const unnamespaced = (size: string) => {
      const object = geoDatabase('roads', size);
      const { namespace: _namespace, ...metadata } = object.metadata;
      return { ...object, metadata };
    };
    await writeFile(join(scratch.dir(), 'old-bare.yaml'), stringify(unnamespaced('20Gi')));
    await writeFile(
      join(scratch.dir(), 'new-default.yaml'),
      stringify({ ...unnamespaced('10Gi'), metadata: { name: 'roads', namespace: 'default' } }),
    );
    const shrunk = await scratch.run('check', '-f', 'new-default.yaml', '--old', 'old-bare.yaml', '-o', 'json');
    expect(shrunk.code).toBe(1);
    expect(jsonReport(shrunk.stdout).objects.map((o) => [o.operation, o.code])).toEqual([
      ['UPDATE', 'CHANGE_FORBIDDEN'],
    ]);
    // With -n maps, the bare manifest is in maps: the one in default is another object, a create.
    const elsewhere = await scratch.run(
      'check',
      '-f',
      'new-default.yaml',
      '--old',
      'old-bare.yaml',
      '-n',
      'maps',
      '-o',
      'json',
    );
    expect(
      jsonReport(elsewhere.stdout)
        .objects.map((o) => o.operation)
        .sort(),
    ).toEqual(['CREATE', 'DELETE']);
    const bad = await scratch.run('check', '-f', 'new-default.yaml', '-n', 'Not_A_Namespace');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--namespace must be a namespace name');
  });

  it('judges each manifest of an object the tree holds twice against its own previous revision, so a forbidden change in either is reported', async () => {
    // Upstream examples are alternatives that reuse a name: two files, each with the same object.
    const write = (file: string, size: string) =>
      writeFile(join(scratch.dir(), file), stringify(geoDatabase('example', size)));
    await Promise.all([
      write('old-a.yaml', '10Gi'),
      write('old-b.yaml', '10Gi'),
      write('new-a.yaml', '20Gi'),
      write('new-b.yaml', '5Gi'),
    ]);
    const result = await scratch.run(
      'check',
      '-f',
      'new-a.yaml',
      '-f',
      'new-b.yaml',
      '--old',
      'old-a.yaml',
      '--old',
      'old-b.yaml',
      '-o',
      'json',
    );
    expect(result.code).toBe(1);
    const [first, second] = jsonReport(result.stdout).objects;
    expect(first).toMatchObject({ operation: 'UPDATE', allowed: true, oldLocation: { file: 'old-a.yaml' } });
    expect(second).toMatchObject({
      operation: 'UPDATE',
      allowed: false,
      code: 'CHANGE_FORBIDDEN',
      oldLocation: { file: 'old-b.yaml' },
      duplicateOf: { file: 'new-a.yaml' },
    });
    expect(second.causes).toEqual([
      expect.objectContaining({
        field: 'spec.storage.size',
        message: 'shrinking storage from 10Gi to 5Gi is unsupported: volumes cannot shrink',
      }),
    ]);
  });

  it('prints the whole tree as it would be stored with --defaulted: decided objects defaulted, others as they are', async () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };
    await writeFile(
      join(scratch.dir(), 'mixed.yaml'),
      [geoDatabase('mixed', '1Gi'), configMap].map((o) => stringify(o)).join('---\n'),
    );
    const yaml = await scratch.run('check', '-f', 'mixed.yaml', '--defaulted', 'yaml');
    expect(yaml.code).toBe(0);
    const documents = parseAllDocuments(yaml.stdout).map((d) => d.toJS());
    expect(documents).toHaveLength(2);
    expect(documents[0].spec).toMatchObject({ readReplicas: 0, caches: [] });
    expect(documents[1]).toEqual(configMap);
    const json = await scratch.run('check', '-f', 'mixed.yaml', '--defaulted', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      apiVersion: 'v1',
      kind: 'List',
      items: [{ spec: { readReplicas: 0 } }, configMap],
    });
    expect(json.stderr).toMatch(/^checked 1 object: 1 allowed/m);
  });

  it('denies an object whose contract rule throws (INTERNAL_ERROR), and decides the others', async () => {
    const defineContractUrl = new URL('../contract/define-contract.ts', import.meta.url).href;
    await writeFile(
      join(scratch.dir(), 'throwing-contract.ts'),
      `import { defineContract } from ${JSON.stringify(defineContractUrl)};
export default () => defineContract({
  identity: { group: 'toys.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } }],
  conversions: {},
  invariants: [(object) => { if (object.spec.size === 13) throw new Error('unlucky size'); return []; }],
});
`,
    );
    const widget = (name: string, size: number) => ({
      apiVersion: 'toys.example.com/v1',
      kind: 'Widget',
      metadata: { name },
      spec: { size },
    });
    await writeFile(
      join(scratch.dir(), 'widgets.yaml'),
      [widget('unlucky', 13), widget('fine', 2)].map((o) => stringify(o)).join('---\n'),
    );
    const result = await scratch.run('check', '-f', 'widgets.yaml', '--contract', 'throwing-contract.ts', '-o', 'json');
    expect(result.code).toBe(1);
    const { objects } = jsonReport(result.stdout);
    expect(byName(objects, 'unlucky')).toMatchObject({
      allowed: false,
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('unlucky size'),
    });
    expect(byName(objects, 'fine')).toMatchObject({ allowed: true });
  });

  it('reads standard input with -f -', async () => {
    const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));
    const run = await new Promise<{ code: number; stdout: string }>((resolve, reject) => {
      const child = execFile(process.execPath, [cli, 'check', '-f', '-', '-o', 'json'], (error, stdout) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout });
      });
      child.stdin!.end(JSON.stringify(geoDatabase('piped', '1Gi')));
    });
    expect(run.code).toBe(0);
    expect(byName(jsonReport(run.stdout).objects, 'piped')).toMatchObject({
      location: { file: '-', document: 1 },
      allowed: true,
    });
  });

  it.each([
    [['check', '-f', 'no/such/folder'], 'no/such/folder: cannot read: ENOENT'],
    [['check', '-f', 'revisions/new', '--old', 'no-such-old'], 'no-such-old: cannot read: ENOENT'],
    [['check', '-f', 'tree/platform/values.yaml'], 'no Kubernetes object'],
    [['check', '-f', 'revisions/new', '--state', 'Sleeping'], '--state Sleeping is not a state'],
    [['check', '-f', 'revisions/new', '--old', 'revisions/old', '--delete'], '--delete takes no --old'],
    [['check', '-f', '-', '--old', '-'], 'standard input (-) can be read only once'],
    [['check', '-f', 'revisions/new', '--defaulted', 'xml'], '--defaulted must be yaml or json'],
  ])('exits 2 with one line for %j', async (argv, named) => {
    const result = await inFixtures(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(named)]);
  });
});

// test/fixtures/check/README.md says what invalid-yaml/ holds: which files are not valid YAML or JSON (and where),
// which are empty and why, and what its two GeoDatabases get.
describe('crdgate check on a tree with files that are not valid YAML or JSON, or empty', () => {
  const notValid = [
    ['invalid-yaml/apps/broken.json', 'MANIFEST_NOT_JSON'],
    ['invalid-yaml/apps/duplicate-key.yaml', 'MANIFEST_NOT_YAML'],
    ['invalid-yaml/apps/tab-indent.yaml', 'MANIFEST_NOT_YAML'],
  ];
  const empty = [
    ['invalid-yaml/apps/comments-only.yaml', 'COMMENTS_ONLY'],
    ['invalid-yaml/apps/empty-list.yaml', 'EMPTY_LIST'],
    ['invalid-yaml/apps/empty.yaml', 'EMPTY_FILE'],
    ['invalid-yaml/apps/separator-only.yaml', 'EMPTY_DOCUMENT'],
  ];
  const sorted = (pairs: string[][]) => [...pairs].sort(([a], [b]) => (a! < b! ? -1 : 1));

  it('reports each unreadable file as a failure with its code and position, decides the rest, and exits 1 (json)', async () => {
    const result = await inFixtures('check', '-f', 'invalid-yaml/apps', '-o', 'json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const report = jsonReport(result.stdout);
    expect(report.summary).toMatchObject({
      checked: 2,
      allowed: 1,
      denied: 1,
      invalid: 3,
      empty: 4,
      emptyReasons: { EMPTY_FILE: 1, COMMENTS_ONLY: 1, EMPTY_DOCUMENT: 1, EMPTY_LIST: 1 },
    });
    expect(sorted(report.invalid.map((entry) => [entry.location.file, entry.code]))).toEqual(notValid);
    for (const entry of report.invalid) {
      expect(entry).toMatchObject({ tree: 'new', message: expect.any(String) });
      expect(entry.message.length).toBeGreaterThan(0);
    }
    expect(report.invalid.find((entry) => entry.location.file.endsWith('duplicate-key.yaml')).location).toEqual({
      file: 'invalid-yaml/apps/duplicate-key.yaml',
      document: 1,
      line: 6,
      column: 3,
    });
    expect(report.invalid.find((entry) => entry.location.file.endsWith('tab-indent.yaml')).location).toMatchObject({
      line: 7,
      column: 1,
    });
    expect(sorted(report.empty.map((entry) => [entry.location.file, entry.reason]))).toEqual(empty);
    expect(byName(report.objects, 'good')).toMatchObject({ allowed: true, code: 'ALLOWED' });
    expect(byName(report.objects, 'bad')).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
  });

  it('writes a testcase named by the file with a failure for each, and a skipped testcase per empty one (junit)', async () => {
    const result = await inFixtures('check', '-f', 'invalid-yaml/apps', '-o', 'junit');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const root = parseXml(result.stdout);
    expect(root.name).toBe('testsuites');
    // 2 decided objects, 3 unreadable files, 4 empty ones; 1 denial and the 3 files fail.
    expect(root.attributes).toMatchObject({ tests: '9', failures: '4', skipped: '4' });
    const suites = descendants(root, 'testsuite');
    const sum = (attribute: string) => suites.reduce((total, suite) => total + Number(suite.attributes[attribute]), 0);
    expect([sum('tests'), sum('failures'), sum('skipped')]).toEqual([9, 4, 4]);
    const testcases = descendants(root, 'testcase');
    expect(testcases).toHaveLength(9);
    for (const [file, code] of notValid) {
      const named = testcases.filter((testcase) => testcase.attributes.name === file);
      expect(named, file).toHaveLength(1);
      const failures = descendants(named[0]!, 'failure');
      expect(failures.map((failure) => failure.attributes.type)).toEqual([code]);
      // The position, as editors and CI logs link it.
      expect(failures[0]!.attributes.message).toMatch(/:\d+(:\d+)?: /);
    }
    const duplicateKey = testcases.find(
      (testcase) => testcase.attributes.name === 'invalid-yaml/apps/duplicate-key.yaml',
    )!;
    expect(descendants(duplicateKey, 'failure')[0]!.attributes.message).toContain('duplicate-key.yaml:6:3');
    const skipped = testcases.filter((testcase) => descendants(testcase, 'skipped').length > 0);
    expect(
      sorted(
        skipped.map((testcase) => [testcase.attributes.name!, descendants(testcase, 'skipped')[0]!.attributes.type!]),
      ),
    ).toEqual(empty);
    const denied = testcases.filter((testcase) =>
      descendants(testcase, 'failure').some((failure) => failure.attributes.type === 'OBJECT_INVALID'),
    );
    expect(denied).toHaveLength(1);
  });

  it('writes a line per unreadable file with its code and position, and counts them and the empty ones (text)', async () => {
    const result = await inFixtures('check', '-f', 'invalid-yaml/apps');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    for (const [file, code] of notValid) {
      expect(
        lines.filter((line) => line.startsWith(`${file}:`) && line.includes(code!)),
        file,
      ).toHaveLength(1);
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/^invalid-yaml\/apps\/duplicate-key\.yaml:6:3\b.*MANIFEST_NOT_YAML/),
    );
    expect(paragraphAbout(result.stdout, 'bad').header).toMatch(/denied OBJECT_INVALID$/);
    const summary = lines.at(-1)!;
    expect(summary).toMatch(/\b3 documents not valid YAML or JSON\b/);
    expect(summary).toMatch(/\bskipped 4 empty\b/);
    for (const [, reason] of empty) expect(summary).toContain(`${reason} 1`);
  });

  it('reports a previous revision that is not valid YAML as a failure of that file, marked as the old tree', async () => {
    const result = await inFixtures(
      'check',
      '-f',
      'invalid-yaml/apps/databases.yaml',
      '--old',
      'invalid-yaml/old',
      '-o',
      'json',
    );
    expect(result.code).toBe(1);
    const report = jsonReport(result.stdout);
    expect(report.invalid).toEqual([
      {
        location: { file: 'invalid-yaml/old/databases.yaml', document: 1, line: 12, column: 3 },
        tree: 'old',
        code: 'MANIFEST_NOT_YAML',
        message: expect.any(String),
      },
    ]);
    expect(report.summary).toMatchObject({ invalid: 1 });
    // What the old file held is unknown, so its objects cannot be paired: the new ones are judged as they stand.
    expect(byName(report.objects, 'good')).toMatchObject({ operation: 'CREATE', allowed: true });

    const text = await inFixtures('check', '-f', 'invalid-yaml/apps/databases.yaml', '--old', 'invalid-yaml/old');
    expect(text.code).toBe(1);
    const line = text.stdout.split('\n').filter((l) => l.includes('invalid-yaml/old/databases.yaml'));
    expect(line).toEqual([expect.stringMatching(/^invalid-yaml\/old\/databases\.yaml:12:3\b/)]);
    expect(line[0]).toContain('MANIFEST_NOT_YAML');
    expect(line[0]).toContain('previous revision');
  });

  it('exits 1, not 2, for a tree whose only manifest is not valid YAML, and 2 for one with nothing but empty files', async () => {
    const broken = await inFixtures('check', '-f', 'invalid-yaml/apps/duplicate-key.yaml', '-o', 'junit');
    expect(broken.code).toBe(1);
    expect(descendants(parseXml(broken.stdout), 'failure').map((f) => f.attributes.type)).toEqual([
      'MANIFEST_NOT_YAML',
    ]);
    const nothing = await inFixtures(
      'check',
      '-f',
      'invalid-yaml/apps/empty.yaml',
      '-f',
      'invalid-yaml/apps/comments-only.yaml',
    );
    expect(nothing.code).toBe(2);
    expect(nothing.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining('no Kubernetes object')]);
  });
});
