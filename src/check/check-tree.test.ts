import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { defineContract } from '../contract/define-contract.ts';
import { fromCrd, readCrdFile } from '../contract/from-crd.ts';
import { createContractRegistry } from '../contract/registry.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { cacheClusterContract } from '../admission/cache-cluster.fixture.ts';
import { clusterWidgetContract } from '../render/cluster-widget-contract.fixture.ts';
import { checkTree } from './check-tree.ts';
import { collectCrds } from './crd-kinds.ts';
import { parseManifest, type ManifestContents } from './manifest-documents.ts';
import { crdNotes, summarize, summaryLine, treePassed } from './report-summary.ts';

// No object passed over in silence: which kinds a contract's group claims, and an object of a contract's resource
// whose kind is not the contract's (a lowercase CRD kind written otherwise) is an error naming both.

const tree = (...objects: unknown[]) =>
  parseManifest('tree.yaml', objects.map((object) => stringify(object)).join('---\n'), 'yaml');

const gadget = { apiVersion: 'widgets.example.org/v1', kind: 'Gadget', metadata: { name: 'g' } };
const widget = { apiVersion: 'widgets.example.org/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} };

// An operator's CRD whose kind is lowercase (test/fixtures/crds/README.md).
const postgresqlCrd = readCrdFile(
  fileURLToPath(new URL('../../test/fixtures/crds/postgresqls.acid.example.com.yaml', import.meta.url)),
) as KubeObject;
const postgresql = (name: string, size: string, kind = 'postgresql') => ({
  apiVersion: 'acid.example.com/v1',
  kind,
  metadata: { name, namespace: 'default' },
  spec: { teamId: 'acid', numberOfInstances: 2, postgresql: { version: '16' }, volume: { size } },
});

/** The contract a user makes of the CRD with init --from-crd --crd-owner external. */
const guarded = () => defineContract(fromCrd(postgresqlCrd, { crdOwner: 'external' }));
/** The same contract with the kind written UpperCamelCase, and its copy of the CRD changed to match. */
const renamed = () => {
  const crd = structuredClone(postgresqlCrd) as { spec: { names: { kind: string; listKind: string } } };
  crd.spec.names.kind = 'Postgresql';
  crd.spec.names.listKind = 'PostgresqlList';
  return defineContract(fromCrd(crd, { crdOwner: 'external' }));
};

const codes = (contents: ManifestContents, ...contracts: ReturnType<typeof guarded>[]) =>
  checkTree(createContractRegistry(contracts), contents, undefined).objects.map((o) => [o.kind, o.code]);

describe('checkTree: the kinds of a group a contract serves', () => {
  it('denies another kind of a group whose CRDs crdgate owns (KIND_UNKNOWN), naming the kinds it has', () => {
    const report = checkTree(createContractRegistry([clusterWidgetContract()]), tree(gadget, widget), undefined);
    expect(report.objects.map((object) => [object.kind, object.code])).toEqual([
      ['Gadget', 'KIND_UNKNOWN'],
      ['Widget', 'ALLOWED'],
    ]);
    expect(report.objects[0]!.message).toContain('declare Widget (widgets.widgets.example.org)');
    expect(report.skipped).toEqual({});
    expect(treePassed(summarize(report))).toBe(false);
  });

  it("leaves the operator's other kinds alone when the contract guards a CRD it does not own", () => {
    const external = defineContract({ ...clusterWidgetContract(), crdOwner: 'external' });
    const report = checkTree(createContractRegistry([external]), tree(gadget, widget), undefined);
    expect(report.objects.map((object) => [object.kind, object.code])).toEqual([['Widget', 'ALLOWED']]);
    expect(report.skipped).toEqual({ 'Gadget.widgets.example.org': 1 });
  });

  it('decides the lowercase kind of a contract made from its CRD, as the CRD has it', () => {
    const contents = tree(postgresql('big', '10Gi'), postgresql('bad', '10 GB'));
    expect(codes(contents, guarded())).toEqual([
      ['postgresql', 'ALLOWED'],
      ['postgresql', 'OBJECT_INVALID'],
    ]);
  });

  it("denies an object of the contract's resource whose kind the contract writes otherwise (KIND_MISMATCH), naming both", () => {
    const report = checkTree(createContractRegistry([renamed()]), tree(postgresql('big', '10Gi')), undefined);
    expect(report.skipped).toEqual({});
    expect(report.objects).toMatchObject([
      {
        kind: 'postgresql',
        allowed: false,
        code: 'KIND_MISMATCH',
        message: expect.stringMatching(/kind postgresql .*postgresqls\.acid\.example\.com.*declares kind Postgresql/),
      },
    ]);
  });

  it("denies them when the CRD read serves the contract's resource under its own kind, naming the CRD and both kinds", () => {
    const registry = createContractRegistry([renamed()]);
    const contents = tree(postgresqlCrd, postgresql('big', '10Gi'), postgresql('small', '1Gi'));
    const crds = collectCrds(registry, [{ ...contents.objects[0]!, origin: 'tree' }]);
    const report = checkTree(registry, contents, undefined, { crds });
    expect(report.objects.map((object) => [object.name, object.code])).toEqual([
      ['big', 'KIND_MISMATCH'],
      ['small', 'KIND_MISMATCH'],
    ]);
    expect(report.objects[0]!.message).toContain(
      'the CustomResourceDefinition postgresqls.acid.example.com (tree.yaml:1 (document 1)) serves resource postgresqls.acid.example.com ' +
        'with kind postgresql, and the contract for postgresqls.acid.example.com declares kind Postgresql',
    );
    expect(report.crds).toMatchObject([{ kind: 'postgresql', decidedBy: 'contract', contractKind: 'Postgresql' }]);
    expect(crdNotes(report)).toEqual([
      expect.stringContaining('each object of kind postgresql is denied (KIND_MISMATCH)'),
    ]);
    expect(summaryLine(summarize(report))).toBe(
      'checked 2 objects: 0 allowed, 2 denied (CREATE 2); 1 CustomResourceDefinition read',
    );
  });

  it("denies the contract's kind when the CRD read serves it as another resource", () => {
    const registry = createContractRegistry([guarded()]);
    const crd = structuredClone(postgresqlCrd) as KubeObject & { spec: { names: { plural: string } } };
    crd.spec.names.plural = 'pgclusters';
    crd.metadata!.name = 'pgclusters.acid.example.com';
    const contents = tree(crd, postgresql('big', '10Gi'));
    const crds = collectCrds(registry, [{ ...contents.objects[0]!, origin: 'tree' }]);
    const report = checkTree(registry, contents, undefined, { crds });
    expect(report.objects).toMatchObject([
      {
        name: 'big',
        code: 'KIND_MISMATCH',
        message: expect.stringContaining('declares resource postgresqls.acid.example.com'),
      },
    ]);
    expect(report.crds).toMatchObject([{ contractResource: 'postgresqls.acid.example.com' }]);
  });

  it('decides a kind only a CRD read declares by that CRD, in a group a contract owns too, never as skipped', () => {
    const registry = createContractRegistry([clusterWidgetContract()]);
    const gadgetCrd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.widgets.example.org' },
      spec: {
        group: 'widgets.example.org',
        scope: 'Cluster',
        names: { kind: 'Gadget', plural: 'gadgets' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
          },
        ],
      },
    };
    const contents = tree(gadgetCrd, gadget, { ...gadget, metadata: { name: 'h' }, spec: { x: 1 } });
    const crds = collectCrds(registry, [{ ...contents.objects[0]!, origin: 'tree' }]);
    const report = checkTree(registry, contents, undefined, { crds });
    expect(report.objects.map((object) => [object.name, object.code])).toEqual([
      ['g', 'ALLOWED'],
      ['h', 'OBJECT_INVALID'],
    ]);
    expect(report.skipped).toEqual({});
  });

  it('judges a mismatched kind against the previous revision as an UPDATE, and one gone as a DELETE, both denied', () => {
    const registry = createContractRegistry([renamed()]);
    const report = checkTree(
      registry,
      tree(postgresql('big', '5Gi')),
      tree(postgresql('big', '10Gi'), postgresql('gone', '1Gi')),
    );
    expect(report.objects.map((object) => [object.name, object.operation, object.code])).toEqual([
      ['big', 'UPDATE', 'KIND_MISMATCH'],
      ['gone', 'DELETE', 'KIND_MISMATCH'],
    ]);
    expect(report.objects[0]!.oldLocation).toMatchObject({ file: 'tree.yaml', document: 1 });
  });
});

describe('checkTree with a previous revision: the old object as its admission stored it', () => {
  // CacheCluster's mutating webhook defaults spec.tls to {enabled: false}; mid-upgrade it allows adding nodes and
  // refuses any other change. Two revisions of a manifest that never mention tls: the stored object got the default
  // at its create, so no tls change is reported.
  const registry = createContractRegistry([cacheClusterContract()]);
  const cache = (spec: Record<string, unknown>) => ({
    apiVersion: 'cache.example.com/v1',
    kind: 'CacheCluster',
    metadata: { name: 'sessions', namespace: 'shop' },
    spec,
    status: { phase: 'Upgrading' },
  });

  it('reports no change of a field the contract defaults when neither revision mentions it', () => {
    const report = checkTree(
      registry,
      tree(cache({ memory: '512Mi', replicas: 4 })),
      tree(cache({ memory: '512Mi', replicas: 3 })),
    );
    expect(report.objects.map((object) => [object.operation, object.code, object.causes])).toEqual([
      ['UPDATE', 'ALLOWED', []],
    ]);
  });

  it('still reports a real change of it', () => {
    const report = checkTree(
      registry,
      tree(cache({ memory: '512Mi', replicas: 4, tls: { enabled: false } })),
      tree(cache({ memory: '512Mi', replicas: 3, tls: { enabled: true } })),
    );
    expect(report.objects.map((object) => [object.operation, object.code])).toEqual([['UPDATE', 'CHANGE_FORBIDDEN']]);
    expect(report.objects[0]!.causes.map((cause) => cause.field)).toEqual(['spec.tls.enabled']);
  });
});
