import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createContractRegistry } from './registry.ts';
import { type Invariant } from './contract-definition.ts';
import { ContractDefinitionError, defineContract } from './define-contract.ts';
import { fieldError } from './values/field-error.ts';
import { fromCrd, readCrdFile } from './from-crd.ts';
import { renderCustomResourceDefinition } from '../render/custom-resource-definition.ts';

const fixture = new URL('../../test/fixtures/crds/cachepools.cache.example.com.yaml', import.meta.url);
const crd = readCrdFile(fixture) as Record<string, any>;

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ContractDefinitionError);
    return (error as Error).message;
  }
  throw new Error('no error');
}

describe('fromCrd', () => {
  it('takes the identity, versions, schemas, subresources, printer columns and annotations of a CRD', () => {
    const parts = fromCrd(crd);
    expect(parts.identity).toEqual({
      group: 'cache.example.com',
      kind: 'CachePool',
      plural: 'cachepools',
      singular: 'cachepool',
      listKind: 'CachePoolList',
      shortNames: ['cpool'],
      categories: ['caches'],
      scope: 'Namespaced',
    });
    expect(parts.hub).toBe('v1');
    expect(parts.conversions).toEqual({});
    expect(parts.crdAnnotations).toEqual({ 'controller-gen.kubebuilder.io/version': 'v0.21.0' });
    const [v1] = parts.versions;
    expect(v1).toMatchObject({ name: 'v1', served: true, storage: true });
    expect(v1!.schema).toEqual(crd.spec.versions[0].schema.openAPIV3Schema);
    expect(v1!.printerColumns?.map((column) => column.name)).toEqual([
      'Replicas',
      'Ready',
      'Memory',
      'Phase',
      'MaxUnavailable',
      'Age',
    ]);
    expect(v1!.subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
  });

  it('makes a contract with only the rules crdgate adds, which renders the CRD it came from', () => {
    const atMostTwoPorts: Invariant = (object) =>
      Array.isArray(object.spec?.ports) && object.spec.ports.length > 2
        ? [fieldError('spec.ports', 'FieldValueTooMany', 'at most two ports')]
        : [];
    const contract = defineContract({ ...fromCrd(crd), invariants: [atMostTwoPorts] });
    const rendered = renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:8443' } });
    const { conversion, ...spec } = rendered['spec'] as Record<string, unknown>;
    expect(conversion).toEqual({ strategy: 'None' });
    expect({ ...rendered, spec }).toEqual({
      apiVersion: crd.apiVersion,
      kind: crd.kind,
      metadata: crd.metadata,
      spec: crd.spec,
    });
    // Its validators take controller-gen's int-or-string fields as the API server does.
    const validate = createContractRegistry([contract]).contracts[0]!.validators.get('v1')!;
    const pool = (spec: object) => ({
      apiVersion: 'cache.example.com/v1',
      kind: 'CachePool',
      metadata: { name: 'p', namespace: 'default' },
      spec,
    });
    expect(
      validate(
        pool({
          memory: '2Gi',
          maxUnavailable: '25%',
          ports: [{ port: 6379, targetPort: 'redis' }],
          resources: { limits: { cpu: 2 } },
        }),
      ),
    ).toEqual([]);
    expect(
      validate(pool({ memory: 'two gigs', ports: [{ port: 6379 }, { port: 6379 }] })).map((error) => error.field),
    ).toEqual(['spec.memory', 'spec.ports[1]']);
  });

  it("loads controller-gen's real output as written (test/fixtures/controller-gen/crds: int-or-string, quantities, CEL rules, embedded resources)", async () => {
    const dir = new URL('../../test/fixtures/controller-gen/crds/', import.meta.url);
    const files = (await readdir(dir)).filter((file) => file.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const contract = defineContract(fromCrd(readCrdFile(new URL(file, dir))));
      const { validators } = createContractRegistry([contract]).contracts[0]!;
      // Each version's schema compiles, on first use, into a validator that runs.
      for (const version of contract.versions)
        expect(validators.get(version.name)!({ apiVersion: 'x', kind: 'y' }), `${file} ${version.name}`).toBeInstanceOf(
          Array,
        );
    }
  });

  it('copies what it takes, so the contract does not share the CRD object', () => {
    const copy = structuredClone(crd);
    const parts = fromCrd(copy);
    copy.spec.versions[0].schema.openAPIV3Schema.properties.spec.required.push('surprise');
    expect(parts.versions[0]!.schema.properties!['spec']!.required).toEqual(['memory']);
  });

  it('keeps a field named __proto__ a field of the schema, not its prototype, wherever it is', () => {
    const copy = structuredClone(crd);
    const spec = copy.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    Object.defineProperty(spec.properties, '__proto__', {
      value: { type: 'string', description: null },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    const parts = fromCrd(copy);
    const properties = parts.versions[0]!.schema.properties!['spec']!.properties!;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({ type: 'string' });
  });

  it("leaves out kubectl's last-applied copy and cert-manager's CA injection, which crdgate renders itself", () => {
    const annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
      'cert-manager.io/inject-ca-from': 'x/y',
      'example.com/team': 'caches',
    };
    expect(fromCrd({ ...crd, metadata: { ...crd.metadata, annotations } }).crdAnnotations).toEqual({
      'example.com/team': 'caches',
    });
    expect(fromCrd({ ...crd, metadata: { name: crd.metadata.name } })).not.toHaveProperty('crdAnnotations');
  });

  it('takes every version, the storage version as the hub', () => {
    const v1beta1 = {
      ...crd.spec.versions[0],
      name: 'v1beta1',
      storage: false,
      deprecated: true,
      deprecationWarning: 'use v1',
    };
    const parts = fromCrd({ ...crd, spec: { ...crd.spec, versions: [v1beta1, crd.spec.versions[0]] } });
    expect(parts.versions.map((v) => [v.name, v.storage, v.deprecated])).toEqual([
      ['v1beta1', false, true],
      ['v1', true, undefined],
    ]);
    expect(parts.hub).toBe('v1');
    // A second version needs a conversion, which the CRD cannot give: defineContract says so.
    expect(refusal(() => defineContract(parts))).toContain('version v1beta1 has no conversion to the hub v1');
  });

  it.each<[string, unknown, string]>([
    ['a string', 'kind: CustomResourceDefinition', 'fromCrd: expected a CustomResourceDefinition object, got string'],
    [
      'another kind',
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } },
      'fromCrd: expected a CustomResourceDefinition, got a Deployment web',
    ],
    [
      'a v1beta1 CRD',
      { ...crd, apiVersion: 'apiextensions.k8s.io/v1beta1' },
      'is "apiextensions.k8s.io/v1beta1", not apiextensions.k8s.io/v1',
    ],
    [
      'a CRD without versions',
      { ...crd, spec: { ...crd.spec, versions: [] } },
      'the CustomResourceDefinition cachepools.cache.example.com has no versions (spec.versions is empty)',
    ],
    [
      'a CRD without a storage version',
      { ...crd, spec: { ...crd.spec, versions: [{ ...crd.spec.versions[0], storage: false }] } },
      'has no storage version: exactly one of v1 must have storage: true',
    ],
    [
      'a version without a schema',
      { ...crd, spec: { ...crd.spec, versions: [{ ...crd.spec.versions[0], schema: undefined }] } },
      'spec.versions[0] (v1) has no schema.openAPIV3Schema',
    ],
    ['a CRD without a group', { ...crd, spec: { ...crd.spec, group: undefined } }, 'has no spec.group'],
    [
      'a CRD with a scope of its own',
      { ...crd, spec: { ...crd.spec, scope: 'Global' } },
      'spec.scope must be Namespaced or Cluster, got "Global"',
    ],
  ])('refuses %s, saying what is wrong', (_case, input, problem) => {
    expect(refusal(() => fromCrd(input))).toContain(problem);
  });
});

describe('readCrdFile', () => {
  it('reads the one CRD of a YAML file, given as a path or a file URL', () => {
    expect(readCrdFile(fixture.pathname)).toEqual(crd);
    expect(crd.metadata.name).toBe('cachepools.cache.example.com');
  });

  it('picks a CRD by name from a file of several, and says which there are otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crdgate-from-crd-'));
    const other = { ...crd, metadata: { name: 'others.cache.example.com' } };
    const bundle = join(dir, 'bundle.yaml');
    await writeFile(
      bundle,
      [
        stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }),
        stringify(crd),
        stringify(other),
      ].join('---\n'),
    );
    expect(readCrdFile(bundle, { name: 'others.cache.example.com' })).toEqual(other);
    expect(refusal(() => readCrdFile(bundle))).toBe(
      `readCrdFile: ${bundle}: 2 CustomResourceDefinitions (cachepools.cache.example.com, others.cache.example.com): name the one to read with { name }`,
    );
    expect(refusal(() => readCrdFile(bundle, { name: 'nope.example.com' }))).toContain(
      'no CustomResourceDefinition named nope.example.com',
    );
    const json = join(dir, 'crd.json');
    await writeFile(json, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [crd] }));
    expect(readCrdFile(json)).toEqual(crd);
  });

  it('names the file and the problem when it cannot be read or holds no CRD', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crdgate-from-crd-'));
    expect(refusal(() => readCrdFile(join(dir, 'missing.yaml')))).toBe(
      `readCrdFile: ${join(dir, 'missing.yaml')}: cannot read the file: ENOENT`,
    );
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'kind: [unclosed\n');
    expect(refusal(() => readCrdFile(broken))).toMatch(/^readCrdFile: .*broken\.yaml: document 1 is not valid YAML: /);
    const none = join(dir, 'none.yaml');
    await writeFile(none, 'apiVersion: v1\nkind: ConfigMap\n');
    expect(refusal(() => readCrdFile(none))).toBe(`readCrdFile: ${none}: no CustomResourceDefinition in the file`);
  });
});

describe("fromCrd(crd, { crdOwner: 'external' })", () => {
  /** An operator's CRD of these versions. */
  const poolCrd = (versions: unknown[]) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'pools.db.example.com' },
    spec: { group: 'db.example.com', names: { kind: 'Pool', plural: 'pools' }, scope: 'Namespaced', versions },
  });

  it("marks the CRD as its owner's and keeps a copy of it for the local loop", () => {
    const crd = poolCrd([{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }]);
    const parts = fromCrd(crd, { crdOwner: 'external' });
    expect(parts.crdOwner).toBe('external');
    expect(parts.ownerCrd).toEqual(crd);
    expect(parts.ownerCrd).not.toBe(crd);
    expect(fromCrd(crd)).not.toHaveProperty('crdOwner');
  });

  it("holds each schema the API server reads as written once, shared with the version's, and keeps a schema with nulls as written", () => {
    const written = (openAPIV3Schema: unknown) =>
      poolCrd([
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          schema: { openAPIV3Schema: structuredClone(openAPIV3Schema) },
        },
      ]);
    const plain = written({ type: 'object', properties: { spec: { type: 'object', description: 'the pool' } } });
    const shared = fromCrd(structuredClone(plain), { crdOwner: 'external' });
    expect(shared.ownerCrd).toEqual(plain);
    const ownerVersions = (shared.ownerCrd as any).spec.versions;
    expect(ownerVersions.map((version: any) => version.schema.openAPIV3Schema)).toEqual(
      shared.versions.map((version) => version.schema),
    );
    ownerVersions.forEach((version: any, index: number) =>
      expect(version.schema.openAPIV3Schema).toBe(shared.versions[index]!.schema),
    );
    // Read as the API server reads it, a schema with a null is not the one written: the owner's copy keeps the null.
    const nulled = written({ type: 'object', description: null, properties: { spec: { type: 'object' } } });
    const kept = fromCrd(structuredClone(nulled), { crdOwner: 'external' });
    expect(kept.ownerCrd).toEqual(nulled);
    expect(kept.versions[0]!.schema).not.toHaveProperty('description');
  });
});
