import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { descendants, parseXml } from '../check/xml-elements.fixture.ts';
import { cliInTempDir } from '../cli-runner.fixture.ts';

// crdgate check for kinds no contract declares: their CRD (controller-gen's output for crdgate's own fixture types,
// test/fixtures/controller-gen) is in the tree or named with --crd, and kube-apiserver's pipeline decides alone.
const crdsDir = fileURLToPath(new URL('../../test/fixtures/controller-gen/crds/', import.meta.url));
const shapesCrd = join(crdsDir, 'shapes.fixtures.crdgate.example.com_shapes.yaml');
const ruledsCrd = join(crdsDir, 'shapes.fixtures.crdgate.example.com_ruleds.yaml');
const scratch = cliInTempDir('crdgate-check-crd-');

const group = 'shapes.fixtures.crdgate.example.com';
const shape = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: `${group}/v1`,
  kind: 'Shape',
  metadata: { name, namespace: 'demo' },
  spec: { port: 80, storage: '1Gi', ...spec },
});
const ruled = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${group}/v1`,
  kind: 'Ruled',
  metadata: { name, namespace: 'demo' },
  spec,
});
const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'demo' },
  data: { a: '1' },
};

async function write(path: string, objects: unknown[]): Promise<string> {
  const file = join(scratch.dir(), path);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, objects.map((o) => stringify(o)).join('---\n'));
  return path;
}

const jsonReport = (stdout: string) => JSON.parse(stdout) as { summary: any; objects: any[]; crds: any[] };
const byName = (objects: any[], name: string) => {
  const found = objects.filter((o) => o.name === name);
  expect(found, name).toHaveLength(1);
  return found[0];
};

/** A CRD of two versions whose schemas differ: v1alpha1's `size` is a string, v1's an integer with a default. */
function twoVersionCrd(conversion?: Record<string, unknown>) {
  const version = (name: string, size: Record<string, unknown>, storage: boolean) => ({
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { size, colour: { type: 'string', default: 'blue' } } } },
      },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'boxes.toys.example.com' },
    spec: {
      group: 'toys.example.com',
      scope: 'Namespaced',
      names: { kind: 'Box', plural: 'boxes', singular: 'box', listKind: 'BoxList' },
      versions: [
        version('v1alpha1', { type: 'string', maxLength: 3 }, false),
        version('v1', { type: 'integer', maximum: 10 }, true),
      ],
      ...(conversion ? { conversion } : {}),
    },
  };
}
const box = (name: string, apiVersion: string, size: unknown) => ({
  apiVersion,
  kind: 'Box',
  metadata: { name, namespace: 'demo' },
  spec: { size },
});

describe('crdgate check --crd: custom resources decided by kube-apiserver on their CRD alone', () => {
  it('allows a valid object and lists the schema defaults; denies others in the API server words; skips the rest', async () => {
    const tree = await write('shapes/all.yaml', [
      shape('fine', { ports: [{ name: 'http', number: 80 }] }),
      shape('too-many', { replicas: 20, size: 'huge' }),
      shape('unknown-field', { colour: 'red' }),
      ruled('both-images', { image: 'a', imageRef: 'b' }),
      configMap,
    ]);
    const result = await scratch.run('check', '-f', tree, '--crd', crdsDir, '-o', 'json');
    expect(result.code).toBe(1);
    const report = jsonReport(result.stdout);
    expect(report.summary).toMatchObject({
      checked: 4,
      allowed: 1,
      denied: 3,
      skippedKinds: { ConfigMap: 1 },
      crds: 2,
    });
    expect(byName(report.objects, 'fine')).toMatchObject({
      allowed: true,
      defaults: [
        { field: 'spec.ports[0].protocol', value: 'TCP' },
        { field: 'spec.replicas', value: 1 },
        { field: 'spec.retention', value: { days: 7, mode: 'Retain' } },
        { field: 'spec.size', value: 'small' },
      ],
    });
    const tooMany = byName(report.objects, 'too-many');
    expect(tooMany).toMatchObject({
      allowed: false,
      code: 'OBJECT_INVALID',
      message: expect.stringMatching(/^Shape\.shapes\.fixtures\.crdgate\.example\.com "too-many" is invalid: /),
    });
    // In the order the API server visits the schema's properties, which is a map's: compared by field.
    expect([...tooMany.causes].sort((a, b) => (a.field < b.field ? -1 : 1))).toEqual([
      {
        field: 'spec.replicas',
        type: 'FieldValueInvalid',
        message: 'Invalid value: 20: spec.replicas in body should be less than or equal to 10',
      },
      {
        field: 'spec.size',
        type: 'FieldValueNotSupported',
        message: 'Unsupported value: "huge": supported values: "small", "medium", "large"',
      },
    ]);
    // Strict field validation, as kubectl sends it: the API server refuses the body (400) before validating.
    expect(byName(report.objects, 'unknown-field')).toMatchObject({
      allowed: false,
      message: 'Shape in version "v1" cannot be handled as a Shape: strict decoding error: unknown field "spec.colour"',
      causes: [{ field: 'spec.colour', type: 'FieldValueUnknown' }],
    });
    expect(byName(report.objects, 'both-images')).toMatchObject({
      allowed: false,
      causes: [{ field: 'spec', message: 'Invalid value: image and imageRef are mutually exclusive' }],
    });
    expect(report.crds.map((c) => [c.name, c.origin, c.decidedBy, c.versions])).toEqual([
      ['ruleds.shapes.fixtures.crdgate.example.com', 'crd-flag', 'crd', ['v1']],
      ['shapes.shapes.fixtures.crdgate.example.com', 'crd-flag', 'crd', ['v1']],
    ]);
  });

  it('takes field validation as kubectl sends it: Strict (the default) denies an unknown field, Warn prunes it with a warning, Ignore in silence', async () => {
    const tree = await write('field-validation/s.yaml', [
      shape('extra', { colour: 'red', ports: [{ name: 'http', number: 80, nickname: 'web' }] }),
    ]);
    const run = async (...flags: string[]) =>
      byName(
        jsonReport((await scratch.run('check', '-f', tree, '--crd', shapesCrd, '-o', 'json', ...flags)).stdout).objects,
        'extra',
      );
    expect(await run()).toMatchObject({
      allowed: false,
      message: expect.stringContaining(
        'strict decoding error: unknown field "spec.colour", unknown field "spec.ports[0].nickname"',
      ),
    });
    expect(await run('--field-validation', 'Strict')).toMatchObject({ allowed: false });
    // kube-apiserver v1.36's words for fieldValidation=Warn, one warning per field.
    expect(await run('--field-validation', 'Warn')).toMatchObject({
      allowed: true,
      warnings: ['unknown field "spec.colour"', 'unknown field "spec.ports[0].nickname"'],
    });
    expect(await run('--field-validation', 'ignore')).toMatchObject({ allowed: true, warnings: [] });
    const bad = await scratch.run('check', '-f', tree, '--crd', shapesCrd, '--field-validation', 'lenient');
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({
      code: 2,
      stderr: 'crdgate check: --field-validation must be Strict, Warn or Ignore, got "lenient"',
    });
  });

  it('judges transition rules against --old: a change they refuse is denied, the unchanged object allowed', async () => {
    const before = { storageClass: 'fast', size: '2Gi', owner: 'alice', startAt: '2024-01-01T00:00:00Z' };
    const old = await write('rev/old/r.yaml', [ruled('r', before)]);
    const changed = await write('rev/new/r.yaml', [
      ruled('r', { storageClass: 'slow', size: '1Gi', owner: 'bob', startAt: '2023-01-01T00:00:00Z' }),
    ]);
    const denied = await scratch.run('check', '-f', changed, '--old', old, '--crd', ruledsCrd);
    expect(denied.code).toBe(1);
    const lines = denied.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `${changed}:1 (document 1): Ruled demo/r (${group}/v1) UPDATE: denied OBJECT_INVALID`,
      `  previous revision: ${old}:1 (document 1)`,
    ]);
    // The API server visits the schema's properties in map order: the causes are compared in sorted order.
    expect(lines.slice(2, -2).sort()).toEqual([
      '  spec.size: Invalid value: "1Gi": size cannot shrink',
      '  spec.startAt: Invalid value: "2023-01-01T00:00:00Z": startAt cannot move back',
      '  spec.storageClass: Invalid value: "slow": storageClass is immutable',
      '  spec: Forbidden: owner is immutable once set',
    ]);
    expect(lines.slice(-2)).toEqual([
      'checked 1 object: 0 allowed, 1 denied (UPDATE 1); 1 CustomResourceDefinition read',
      '',
    ]);
    const unchanged = await scratch.run('check', '-f', old, '--old', old, '--crd', ruledsCrd);
    expect(unchanged.code).toBe(0);
    // Without --old it is a create: the transition rules (oldSelf) are not evaluated.
    expect((await scratch.run('check', '-f', changed, '--crd', ruledsCrd)).code).toBe(0);
  });

  it('prints what the API server would store with --defaulted, and reads a CRD that is in the tree itself', async () => {
    const tree = await write('with-crd/objects.yaml', [shape('stored'), configMap]);
    await writeFile(join(scratch.dir(), 'with-crd/crd.yaml'), await readFile(shapesCrd, 'utf8'));
    const result = await scratch.run('check', '-f', 'with-crd', '--defaulted', 'yaml');
    expect(result.code).toBe(0);
    const documents = parseAllDocuments(result.stdout).map((d) => d.toJS());
    expect(documents.map((d) => d.kind)).toEqual(['CustomResourceDefinition', 'Shape', 'ConfigMap']);
    expect(documents[1]).toEqual({
      ...shape('stored'),
      spec: { port: 80, storage: '1Gi', replicas: 1, retention: { days: 7, mode: 'Retain' }, size: 'small' },
    });
    // The tree's CRD is read, not skipped.
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      'checked 1 object: 1 allowed, 0 denied (CREATE 1); 1 CustomResourceDefinition read; skipped 1 of kinds no contract or CRD declares (ConfigMap 1)',
    );
    expect(tree).toBe('with-crd/objects.yaml');
  });

  it("judges each object in its own apiVersion's schema, and an UPDATE across versions as the None strategy converts", async () => {
    await write('boxes/crd.yaml', [twoVersionCrd()]);
    const objects = await write('boxes/new/boxes.yaml', [
      box('old-style', 'toys.example.com/v1alpha1', 'big'),
      box('new-style', 'toys.example.com/v1', 20),
      box('moved', 'toys.example.com/v1', 5),
    ]);
    const old = await write('boxes/old/boxes.yaml', [box('moved', 'toys.example.com/v1alpha1', 'abc')]);
    const result = await scratch.run('check', '-f', objects, '--old', old, '--crd', 'boxes/crd.yaml', '-o', 'json');
    const report = jsonReport(result.stdout);
    expect(byName(report.objects, 'old-style')).toMatchObject({
      allowed: true,
      defaults: [{ field: 'spec.colour', value: 'blue' }],
    });
    expect(byName(report.objects, 'new-style')).toMatchObject({
      allowed: false,
      causes: [{ field: 'spec.size', message: expect.stringContaining('less than or equal to 10') }],
    });
    // The stored v1alpha1 object read back as v1 (a string where v1 wants an integer): ratcheting lets the unchanged
    // parts be, and the new value is judged in v1's schema.
    expect(byName(report.objects, 'moved')).toMatchObject({ operation: 'UPDATE', allowed: true });
    const v2 = await write('boxes/v2.yaml', [box('future', 'toys.example.com/v2', 1)]);
    const unserved = jsonReport((await scratch.run('check', '-f', v2, '--crd', 'boxes/crd.yaml', '-o', 'json')).stdout);
    expect(byName(unserved.objects, 'future')).toMatchObject({
      allowed: false,
      message: 'toys.example.com does not serve version "v2" of Box',
    });
  });

  it('does not judge a change across versions of a CRD that converts by webhook, which it cannot call', async () => {
    const webhook = {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://convert.example.com/convert' } },
    };
    await write('webhook/crd.yaml', [twoVersionCrd(webhook)]);
    const objects = await write('webhook/new.yaml', [
      box('moved', 'toys.example.com/v1', 5),
      box('stays', 'toys.example.com/v1', 6),
    ]);
    const old = await write('webhook/old.yaml', [
      box('moved', 'toys.example.com/v1alpha1', 'abc'),
      box('stays', 'toys.example.com/v1', 5),
    ]);
    const report = jsonReport(
      (await scratch.run('check', '-f', objects, '--old', old, '--crd', 'webhook/crd.yaml', '-o', 'json')).stdout,
    );
    expect(byName(report.objects, 'moved')).toMatchObject({
      allowed: false,
      code: 'OLD_OBJECT_UNCONVERTIBLE',
      message: expect.stringContaining('converts between versions with a webhook'),
    });
    expect(byName(report.objects, 'stays')).toMatchObject({ operation: 'UPDATE', allowed: true });
  });

  it('allows the deletion of an object only the previous revision has (the API server validates none)', async () => {
    const old = await write('gone/old.yaml', [shape('gone'), shape('kept')]);
    const now = await write('gone/new.yaml', [shape('kept')]);
    const report = jsonReport(
      (await scratch.run('check', '-f', now, '--old', old, '--crd', shapesCrd, '-o', 'json')).stdout,
    );
    expect(report.objects.map((o) => [o.name, o.operation, o.allowed])).toEqual([
      ['kept', 'UPDATE', true],
      ['gone', 'DELETE', true],
    ]);
  });

  it('writes a JUnit testcase per object of a CRD kind, a failure in the API server words', async () => {
    const tree = await write('junit/shapes.yaml', [shape('good'), shape('bad', { size: 'huge' })]);
    const result = await scratch.run('check', '-f', tree, '--crd', shapesCrd, '-o', 'junit');
    expect(result.code).toBe(1);
    const failures = descendants(parseXml(result.stdout), 'failure');
    expect(failures.map((f) => [f.attributes.type, f.text])).toEqual([
      ['OBJECT_INVALID', 'spec.size: Unsupported value: "huge": supported values: "small", "medium", "large"'],
    ]);
  });

  it('lets a contract decide a kind it declares, warning when the CRD met for it has another schema', async () => {
    const rendered = await scratch.run('manifests');
    const crd = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJS())
      .find((d) => d?.kind === 'CustomResourceDefinition');
    const geo = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'db', namespace: 'maps' },
      spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '1Gi' } },
    };
    await write('geo/same/crd.yaml', [crd]);
    await write('geo/same/db.yaml', [geo]);
    const same = await scratch.run('check', '-f', 'geo/same', '-o', 'json');
    expect(same.code).toBe(0);
    expect(jsonReport(same.stdout).crds).toEqual([
      expect.objectContaining({ kind: 'GeoDatabase', decidedBy: 'contract' }),
    ]);
    expect(jsonReport(same.stdout).crds[0]).not.toHaveProperty('differsFromContract');

    const stale = structuredClone(crd);
    stale.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.storage.properties.size.maxLength = 1;
    await write('geo/stale/crd.yaml', [stale]);
    await write('geo/stale/db.yaml', [geo]);
    const text = await scratch.run('check', '-f', 'geo/stale');
    // The contract's CRD decides: the stale maxLength of 1 would have refused "1Gi".
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(
      `warning: geo/stale/crd.yaml:1 (document 1): CustomResourceDefinition geodatabases.geo.example.com: the contract of GeoDatabase decides its objects, and this CRD's schema differs from the contract's in ${stale.spec.versions[0].name} (crdgate manifests renders the contract's)`,
    );
  });

  it('stops with one line naming the CRD and the API server words when it would refuse the CRD (exit 2)', async () => {
    const crd = parse(await readFile(ruledsCrd, 'utf8'));
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.address['x-kubernetes-validations'][0].rule =
      'isIP(self) &&';
    await write('refused/crd.yaml', [configMap, crd]);
    await write('refused/r.yaml', [ruled('r', {})]);
    for (const argv of [
      ['-f', 'refused/r.yaml', '--crd', 'refused'],
      ['-f', 'refused'],
    ]) {
      const result = await scratch.run('check', ...argv);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /refused\/crd\.yaml:\d+ \(document 2\): CustomResourceDefinition ruleds\.shapes\.fixtures\.crdgate\.example\.com: kube-apiserver would refuse it: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[address\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/,
      );
      expect(
        lines[0]!.startsWith(
          argv[2] === '--crd' ? 'crdgate check: --crd refused/crd.yaml' : 'crdgate check: refused/crd.yaml',
        ),
      ).toBe(true);
    }
  });

  it.each([
    ['a path that does not exist', ['--crd', 'no/such.yaml'], '--crd no/such.yaml: cannot read: ENOENT'],
    [
      'a file with no CRD',
      ['--crd', 'plain.yaml'],
      '--crd plain.yaml: no CustomResourceDefinition in it (it has: ConfigMap)',
    ],
    ['a file not valid YAML', ['--crd', 'broken.yaml'], '--crd broken.yaml:1:4: not valid YAML'],
    [
      'a v1beta1 CRD',
      ['--crd', 'beta.yaml'],
      'kube-apiserver serves CustomResourceDefinitions as apiextensions.k8s.io/v1 only, not apiextensions.k8s.io/v1beta1',
    ],
    [
      'two different CRDs of one kind',
      ['--crd', 'boxes/crd.yaml', '--crd', 'other-box.yaml'],
      'a different CustomResourceDefinition of Box.toys.example.com is at boxes/crd.yaml:1 (document 1) already',
    ],
  ])('exits 2 with one line for %s', async (_what, argv, named) => {
    await write('plain.yaml', [configMap]);
    await writeFile(join(scratch.dir(), 'broken.yaml'), 'a: 1\n  b: [\n');
    await write('beta.yaml', [{ ...twoVersionCrd(), apiVersion: 'apiextensions.k8s.io/v1beta1' }]);
    await write('boxes/crd.yaml', [twoVersionCrd()]);
    const other = twoVersionCrd();
    other.spec.versions[1]!.served = false;
    await write('other-box.yaml', [other]);
    const objects = await write('some.yaml', [shape('s')]);
    const result = await scratch.run('check', '-f', objects, ...argv);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(named)]);
  });

  it('counts the same CRD given twice (in the tree and with --crd) once', async () => {
    await writeFile(join(scratch.dir(), 'twice-crd.yaml'), await readFile(shapesCrd, 'utf8'));
    const objects = await write('twice-objects.yaml', [shape('once')]);
    const result = await scratch.run('check', '-f', objects, '-f', 'twice-crd.yaml', '--crd', shapesCrd, '-o', 'json');
    expect(result.code).toBe(0);
    expect(jsonReport(result.stdout).summary.crds).toBe(1);
  });
});

// Each test runs the CLI, which loads a contract module and the engine: seconds on a busy machine.
describe(
  "crdgate check with a contract that does not own its CRD (crdOwner: 'external'): the owner's CRD from the tree or --crd",
  { timeout: 30_000 },
  () => {
    const pool = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: 'ops.example.com/v1',
      kind: 'Pool',
      metadata: { name, namespace: 'x' },
      spec,
    });
    const ownerCrd = (extra: Record<string, unknown> = {}) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.ops.example.com', annotations: { 'helm.sh/chart': 'ops-1.0.0' } },
      spec: {
        group: 'ops.example.com',
        scope: 'Namespaced',
        names: { kind: 'Pool', plural: 'pools', singular: 'pool', listKind: 'PoolList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, ...extra } },
                },
              },
            },
          },
        ],
      },
    });
    const writeContract = async () => {
      await write('owner/contract/crd.yaml', [ownerCrd()]);
      const crdgate = JSON.stringify(new URL('../index.ts', import.meta.url).href);
      await writeFile(
        join(scratch.dir(), 'owner/contract/pool.ts'),
        `import { defineContract, fieldError, fromCrd, readCrdFile } from ${crdgate};\n` +
          `export default () => defineContract({ ...fromCrd(readCrdFile(new URL('./crd.yaml', import.meta.url)), { crdOwner: 'external' }),\n` +
          `  invariants: [(o) => (o.spec?.size === 13 ? [fieldError('spec.size', 'FieldValueForbidden', 'thirteen pools are bad luck')] : [])] });\n`,
      );
      return 'owner/contract/pool.ts';
    };

    it("decides the contract's kind by the contract, the owner's CRD in the tree only checked and compared: no warning when it is the contract's copy", async () => {
      const contract = await writeContract();
      await write('owner/same/crds.yaml', [ownerCrd()]);
      await write('owner/same/pools.yaml', [pool('lucky', { size: 2 }), pool('unlucky', { size: 13 })]);
      const result = await scratch.run('check', '--contract', contract, '-f', 'owner/same', '-o', 'json');
      const report = jsonReport(result.stdout);
      expect(result.code).toBe(1);
      expect(report.crds).toEqual([
        expect.objectContaining({ name: 'pools.ops.example.com', decidedBy: 'contract', ownedBy: 'external' }),
      ]);
      expect(report.crds[0]).not.toHaveProperty('differsFromContract');
      expect(byName(report.objects, 'lucky')).toMatchObject({ allowed: true });
      // The contract's own rule: the CRD alone would have allowed it.
      expect(byName(report.objects, 'unlucky')).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
      expect(JSON.stringify(byName(report.objects, 'unlucky'))).toContain('thirteen pools are bad luck');
    });

    it("warns, naming the paths, when the owner's release named with --crd differs from the contract's copy, and denies its new field as serve would", async () => {
      const contract = await writeContract();
      await write('owner/next/crd.yaml', [ownerCrd({ tier: { type: 'string' } })]);
      await write('owner/next-objects/pools.yaml', [pool('gold', { size: 2, tier: 'gold' })]);
      const result = await scratch.run(
        'check',
        '--contract',
        contract,
        '-f',
        'owner/next-objects',
        '--crd',
        'owner/next/crd.yaml',
      );
      expect(result.code).toBe(1);
      expect(result.stdout.split('\n')[0]).toBe(
        "warning: --crd owner/next/crd.yaml:1 (document 1): CustomResourceDefinition pools.ops.example.com: the contract of Pool decides its objects, and this CRD, its owner's, " +
          "differs from the contract's copy of it in v1 (v1: spec.tier (added)): crdgate serve reports the same drift against the live CRD; update the contract's copy from this release, or serve with --owner-schema live",
      );
      expect(result.stdout).toContain('spec.tier: unknown field "tier"');
    });
  },
);

// An operator's CRD whose kind is lowercase (test/fixtures/crds/postgresqls.acid.example.com.yaml), guarded as
// init --from-crd --crd-owner external makes the contract: its objects are decided, never skipped, and a contract
// whose kind is not the CRD's fails the check naming both kinds.
describe('crdgate check with a lowercase kind (postgresql) of a CRD someone else owns', { timeout: 30_000 }, () => {
  const crdFile = fileURLToPath(new URL('../../test/fixtures/crds/postgresqls.acid.example.com.yaml', import.meta.url));
  const postgresql = (name: string, size: string, version = '16', kind = 'postgresql') => ({
    apiVersion: 'acid.example.com/v1',
    kind,
    metadata: { name, namespace: 'default' },
    spec: { teamId: 'acid', numberOfInstances: 2, postgresql: { version }, volume: { size } },
  });
  /** The contract init writes, its kind written `kind` in the copy of the CRD it reads (the user's rename). */
  const writeContract = async (kind: string) => {
    const crd = parse(await readFile(crdFile, 'utf8')) as { spec: { names: Record<string, string> } };
    crd.spec.names['kind'] = kind;
    crd.spec.names['listKind'] = `${kind}List`;
    await write(`pg-${kind}/crds/postgresql.yaml`, [crd]);
    const crdgate = JSON.stringify(new URL('../index.ts', import.meta.url).href);
    await writeFile(
      join(scratch.dir(), `pg-${kind}/contract.ts`),
      `import { defineContract, fromCrd, readCrdFile } from ${crdgate};\n` +
        `export default () => defineContract({ ...fromCrd(readCrdFile(new URL('./crds/postgresql.yaml', import.meta.url)), { crdOwner: 'external' }) });\n`,
    );
    return `pg-${kind}/contract.ts`;
  };

  it('decides every postgresql object by the contract and exits 1 for the invalid one: nothing skipped', async () => {
    const contract = await writeContract('postgresql');
    await write('pg/objects.yaml', [postgresql('big', '10Gi'), postgresql('odd', '10 GB'), configMap]);
    const result = await scratch.run('check', '--contract', contract, '-f', 'pg/objects.yaml', '-o', 'json');
    expect(result.code).toBe(1);
    const report = jsonReport(result.stdout);
    expect(report.objects.map((o) => [o.name, o.kind, o.code])).toEqual([
      ['big', 'postgresql', 'ALLOWED'],
      ['odd', 'postgresql', 'OBJECT_INVALID'],
    ]);
    expect(report.summary.skippedKinds).toEqual({ ConfigMap: 1 });
  });

  it('exits 1 naming both kinds when the contract writes the kind otherwise, with or without the CRD in the tree', async () => {
    const contract = await writeContract('Postgresql');
    await write('pg-renamed/objects.yaml', [postgresql('big', '10Gi'), postgresql('shrunk', '1Gi', '15')]);
    await write('pg-renamed-crd/crd.yaml', [parse(await readFile(crdFile, 'utf8'))]);
    for (const crdFlags of [[], ['--crd', 'pg-renamed-crd']]) {
      const result = await scratch.run('check', '--contract', contract, '-f', 'pg-renamed/objects.yaml', ...crdFlags);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('checked 2 objects: 0 allowed, 2 denied (CREATE 2)');
      expect(result.stdout).not.toContain('skipped');
      expect(result.stdout).toMatch(/postgresql default\/big \(acid\.example\.com\/v1\) CREATE: denied KIND_MISMATCH/);
      expect(result.stdout).toMatch(/kind postgresql.*declares kind Postgresql/);
    }
  });

  it("skips the operator's other kind of the group, when no CRD read serves it (exit 0)", async () => {
    const contract = await writeContract('postgresql');
    await write('pg-other/objects.yaml', [
      postgresql('big', '10Gi'),
      { apiVersion: 'acid.example.com/v1', kind: 'OperatorConfiguration', metadata: { name: 'c', namespace: 'x' } },
    ]);
    const result = await scratch.run('check', '--contract', contract, '-f', 'pg-other/objects.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'skipped 1 of kinds no contract declares (OperatorConfiguration.acid.example.com 1)',
    );
  });
});
