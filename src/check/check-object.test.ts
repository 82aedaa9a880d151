import { describe, expect, it } from 'vitest';
import { loadCrd } from '../api-server-engine/engine.ts';
import { defineContract } from '../contract/define-contract.ts';
import { fromCrd } from '../contract/from-crd.ts';
import { createContractRegistry } from '../contract/registry.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { dbClusterTwoVersionContract } from '../../test/e2e/support/db-operator-contracts.ts';
import { cacheClusterContract } from '../admission/cache-cluster.fixture.ts';
import { fieldDeletionRule } from '../contract/deletion-rules.ts';
import { checkCrdObject, checkObject } from './check-object.ts';

// A kind whose schema defaults its status, as Flux's sources do (`status: {default: {observedGeneration: -1}}`), with
// the status subresource on: a create drops the status the decoder defaulted, and the API server's answer (a dry
// run's too) shows it again, defaulted when the stored object is read back. kube-apiserver v1.36 answers a dry-run
// create of `repository` below with `status: {observedGeneration: -1}` (test/e2e/crd-corpus.e2e.test.ts, Flux's
// HelmRepository).
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'repositories.source.example.com' },
  spec: {
    group: 'source.example.com',
    names: { kind: 'Repository', plural: 'repositories' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { url: { type: 'string' } } },
              status: {
                type: 'object',
                default: { observedGeneration: -1 },
                properties: { observedGeneration: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

const repository: KubeObject = {
  apiVersion: 'source.example.com/v1',
  kind: 'Repository',
  metadata: { name: 'charts', namespace: 'default' },
  spec: { url: 'oci://example.com/charts' },
};

describe('the object a check answers with', () => {
  it('is the stored object as the API server reads it back: a status the create dropped comes back defaulted', () => {
    const registry = createContractRegistry([defineContract(fromCrd(crd, { crdOwner: 'external' }))]);
    const result = checkObject(registry, { operation: 'CREATE', object: repository });
    expect(result.allowed).toBe(true);
    expect(result.object).toEqual({ ...repository, status: { observedGeneration: -1 } });
    expect(result.defaults).toEqual([{ field: 'status', value: { observedGeneration: -1 } }]);
  });

  it('is read back so for a CRD alone too (check --crd)', () => {
    const result = checkCrdObject(loadCrd(crd), { operation: 'CREATE', object: repository });
    expect(result.object).toEqual({ ...repository, status: { observedGeneration: -1 } });
    expect(result.defaults).toEqual([{ field: 'status', value: { observedGeneration: -1 } }]);
  });
});

// A kind of two versions whose CRD converts with None, as Crossplane's CompositeResourceDefinition (v1 stored, with a
// default of its own on a field v2 declares too; v2 served beside it): kube-apiserver v1.36 answers a dry-run create
// written in v2 with the default v1's schema sets when the object is read back from storage, and without a field
// only v2 declares, which that read prunes; converted back to v2, the answer loses what v2 does not declare, a v1
// default included, as Kyverno's ClusterPolicy written in v2beta1 loses v1's allowExistingViolations; nor is it
// defaulted again, as Cluster API's KubeadmControlPlaneTemplate written in v1beta1 has no rolloutStrategy, which
// v1beta1 defaults and v1beta2, stored, does not declare
// (test/e2e/crd-corpus.e2e.test.ts: Crossplane's XRDs in v2, Cluster API's ClusterClass in v1beta1, Kyverno's
// ClusterPolicy in v2beta1, OpenTelemetryCollector in v1alpha1).
const twoVersions = {
  ...crd,
  metadata: { name: 'definitions.source.example.com' },
  spec: {
    group: 'source.example.com',
    names: { kind: 'Definition', plural: 'definitions' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  policy: { type: 'string', default: 'Background' },
                  mode: { type: 'string', default: 'Strict' },
                },
              },
            },
          },
        },
      },
      {
        name: 'v2',
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  policy: { type: 'string' },
                  scope: { type: 'string' },
                  tier: { type: 'string', default: 'gold' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('the object a check answers with, written in a version other than the storage version', () => {
  it('is stored in the storage version and read back there (its defaults set, what it does not declare pruned), then pruned by its own', () => {
    const registry = createContractRegistry([defineContract(fromCrd(twoVersions, { crdOwner: 'external' }))]);
    const written: KubeObject = {
      apiVersion: 'source.example.com/v2',
      kind: 'Definition',
      metadata: { name: 'xrd' },
      spec: { size: 1, scope: 'Namespaced' },
    };
    const result = checkObject(registry, { operation: 'CREATE', object: written });
    expect(result.allowed).toBe(true);
    expect(result.object).toEqual({ ...written, spec: { size: 1, policy: 'Background' } });
  });

  it('is read back in its own version when the owner converts with a webhook, which cannot run here', () => {
    const withWebhook = {
      ...twoVersions,
      spec: {
        ...twoVersions.spec,
        conversion: {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: ['v1'],
            clientConfig: { service: { namespace: 'owner', name: 'owner-webhook', path: '/convert' } },
          },
        },
      },
    };
    const registry = createContractRegistry([defineContract(fromCrd(withWebhook, { crdOwner: 'external' }))]);
    const written: KubeObject = {
      apiVersion: 'source.example.com/v2',
      kind: 'Definition',
      metadata: { name: 'xrd' },
      spec: { size: 1, scope: 'Namespaced' },
    };
    // v2's own default is set (as the request's decoding sets it); nothing of v1's.
    expect(checkObject(registry, { operation: 'CREATE', object: written }).object).toEqual({
      ...written,
      spec: { size: 1, scope: 'Namespaced', tier: 'gold' },
    });
  });
});

describe('the old object of an update written in another version of a CRD its owner converts', () => {
  const registry = createContractRegistry([dbClusterTwoVersionContract()]);
  const meta = { name: 'orders', namespace: 'team-a' };
  const healthy = { phase: 'Cluster in healthy state' };

  it('is relabelled, as the API server relabels it under strategy None, and judged there', () => {
    // The v1beta1 manifest's image reaches the v1 old object: the change is a major upgrade, refused.
    const result = checkObject(registry, {
      operation: 'UPDATE',
      oldObject: {
        apiVersion: 'dbops.example.com/v1beta1',
        kind: 'DbCluster',
        metadata: meta,
        spec: { replicas: 3, imageName: 'registry.example/pg:16.4' },
        status: healthy,
      },
      object: {
        apiVersion: 'dbops.example.com/v1',
        kind: 'DbCluster',
        metadata: meta,
        spec: { instances: 3, imageName: 'registry.example/pg:17.0' },
      },
    });
    expect(result.allowed).toBe(false);
    expect(result.causes.map((cause) => cause.message)).toEqual([
      expect.stringContaining(
        'a major upgrade from registry.example/pg:16.4 to registry.example/pg:17.0 is unsupported',
      ),
    ]);
  });
});

describe('a DELETE, decided on the object as stored', () => {
  /** CacheCluster with a deletion protection its hub (v1) alone declares, stored in `storage`. */
  function protectedCache(storage: 'v1' | 'v1alpha1') {
    const { storageVersion: _storage, ...base } = cacheClusterContract({ storage });
    return defineContract({
      ...base,
      versions: base.versions.map((version) => {
        if (version.name !== 'v1') return version;
        const spec = version.schema.properties!['spec']!;
        const properties = { ...spec.properties, deletionProtection: { type: 'boolean' as const } };
        return {
          ...version,
          schema: { ...version.schema, properties: { ...version.schema.properties, spec: { ...spec, properties } } },
        };
      }),
      deletionRules: [fieldDeletionRule({ field: 'spec.deletionProtection', equals: true })],
    });
  }
  const manifest: KubeObject = {
    apiVersion: 'cache.example.com/v1',
    kind: 'CacheCluster',
    metadata: { name: 'c', namespace: 'ns' },
    spec: { memory: '512Mi', replicas: 3, deletionProtection: true },
  };

  it('refuses it where the storage version keeps the protection', () => {
    const registry = createContractRegistry([protectedCache('v1')]);
    const result = checkObject(registry, { operation: 'DELETE', object: manifest });
    expect(result).toMatchObject({ allowed: false, code: 'DELETION_PROTECTED' });
  });

  it('allows it where the storage version prunes the protection, as the API server would: it was never stored', () => {
    const registry = createContractRegistry([protectedCache('v1alpha1')]);
    const result = checkObject(registry, { operation: 'DELETE', object: manifest });
    expect(result.allowed).toBe(true);
    expect(result.object?.spec).not.toHaveProperty('deletionProtection');
  });
});
