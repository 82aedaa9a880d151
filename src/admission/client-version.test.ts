import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { cacheClusterContract } from './cache-cluster.fixture.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation } from './validate.ts';

// Rules run on the hub (v1); a client of an older version must read about its own fields. With matchPolicy
// Equivalent the API server sends the object converted to v1 and names the client's version in requestKind.

const registry = createContractRegistry([geoDatabaseContract()]);

function hubObject(spec: Record<string, unknown>, phase = 'Ready', annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: {
      name: 'db',
      namespace: 'maps',
      labels: { 'geo.example.com/postgres-major': '16' },
      ...(annotations ? { annotations } : {}),
    },
    spec: {
      postgres: { version: '16.4', postgis: '3.4.2' },
      readReplicas: 3,
      storage: { size: '50Gi' },
      caches: [{ name: 'tiles', memory: '2Gi', version: '7.2', replicas: 1 }],
      ...spec,
    },
    status: { phase },
  };
}

function request(
  clientVersion: string,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: KubeObject | null,
  oldObject: KubeObject | null = null,
): AdmissionRequest {
  const kind = (version: string) => ({ group: 'geo.example.com', version, kind: 'GeoDatabase' });
  return { uid: 'uid-1', kind: kind('v1'), requestKind: kind(clientVersion), operation, object, oldObject };
}

describe('denials in the version the client wrote', () => {
  it("names a v1beta1 client's renamed field in the causes and the message", () => {
    const verdict = decideValidation(registry, request('v1beta1', 'CREATE', hubObject({ readReplicas: 20 })));
    expect(verdict.code).toBe('OBJECT_INVALID');
    expect(verdict.causes).toEqual([
      {
        field: 'spec.replicas',
        type: 'FieldValueInvalid',
        message: 'Invalid value: 20: must be less than or equal to 15',
      },
    ]);
    expect(verdict.message).toBe(
      'GeoDatabase.geo.example.com "db" is invalid: spec.replicas: Invalid value: 20: must be less than or equal to 15',
    );
  });

  it('says so when the field is a v1 field with no v1beta1 equivalent, through list indexes', () => {
    const caches = [
      { name: 'tiles', memory: '2Gi', version: '7.2', replicas: 1 },
      { name: 'big', memory: '32Mi', version: 'latest', replicas: 9 },
    ];
    const verdict = decideValidation(registry, request('v1beta1', 'CREATE', hubObject({ caches })));
    expect(verdict.causes?.map((cause) => `${cause.field} ${cause.type}`)).toEqual([
      'spec.caches[1].version (v1 field; no v1beta1 equivalent) FieldValueInvalid',
      'spec.caches[1].replicas (v1 field; no v1beta1 equivalent) FieldValueInvalid',
      // A field both versions have keeps its path, index and all.
      'spec.caches[1].memory FieldValueInvalid',
    ]);
  });

  it("names a v1alpha1 client's flat fields, for the invariants too", () => {
    const verdict = decideValidation(
      registry,
      request('v1alpha1', 'CREATE', hubObject({ postgres: { version: '18.1', postgis: '3.4.2' } })),
    );
    expect(verdict.causes?.map((cause) => cause.field)).toEqual(['spec.postgresVersion', 'spec.postgisVersion']);
    expect(verdict.message).toContain('spec.postgresVersion: PostgreSQL major 18 is not supported');
  });

  it('words a forbidden change and the paths inside its message in the client version', () => {
    const old = hubObject({}, 'Ready');
    const both = hubObject({ postgres: { version: '16.6', postgis: '3.4.2' }, storage: { size: '60Gi' } }, 'Ready');
    const verdict = decideValidation(registry, request('v1alpha1', 'UPDATE', both, old));
    expect(verdict.code).toBe('CHANGE_FORBIDDEN');
    expect(verdict.causes?.map((cause) => cause.field)).toEqual(['spec.storageGB', 'spec.postgresVersion']);
    expect(verdict.causes?.[1]?.message).toMatch(/cannot be combined with storage\.grow \(spec\.storageGB\)/);
  });

  it("shows a refused change's values as the client's version holds them, not the hub's", () => {
    const shrink = decideValidation(
      registry,
      request('v1alpha1', 'UPDATE', hubObject({ storage: { size: '40Gi' } }), hubObject({})),
    );
    expect(shrink.causes).toEqual([
      expect.objectContaining({
        field: 'spec.storageGB',
        message: expect.stringMatching(/^shrinking storage from 50 to 40 is unsupported/),
      }),
    ]);
    // The hub's client is told the hub's values; the ruling is the same.
    const inHub = decideValidation(
      registry,
      request('v1', 'UPDATE', hubObject({ storage: { size: '40Gi' } }), hubObject({})),
    );
    expect(inHub.causes?.[0]?.message).toMatch(/^shrinking storage from 50Gi to 40Gi is unsupported/);

    // The case: a v1alpha1 client that wrote memoryMB 256 over 512 reads its own numbers.
    const cache = cacheClusterContract();
    const cacheObject = (memory: string): KubeObject => ({
      apiVersion: 'cache.example.com/v1',
      kind: 'CacheCluster',
      metadata: { name: 'c', namespace: 'ns' },
      spec: { memory, replicas: 3, tls: { enabled: false } },
      status: { phase: 'Running' },
    });
    const cacheKind = (version: string) => ({ group: cache.identity.group, version, kind: cache.identity.kind });
    const verdict = decideValidation(createContractRegistry([cache]), {
      uid: 'uid-2',
      kind: cacheKind('v1'),
      requestKind: cacheKind('v1alpha1'),
      operation: 'UPDATE',
      object: cacheObject('256Mi'),
      oldObject: cacheObject('512Mi'),
    });
    expect(verdict.causes).toEqual([
      expect.objectContaining({
        field: 'spec.memoryMB',
        message: expect.stringMatching(/^shrinking memory from 512 to 256 is unsupported/),
      }),
    ]);
  });

  it("refuses a scale while upgrading at the v1beta1 client's spec.replicas", () => {
    const verdict = decideValidation(
      registry,
      request('v1beta1', 'UPDATE', hubObject({ readReplicas: 1 }, 'Upgrading'), hubObject({}, 'Upgrading')),
    );
    expect(verdict.code).toBe('CHANGE_FORBIDDEN');
    expect(verdict.message).toMatch(
      /cannot be changed: spec\.replicas: changing read replicas from 3 to 1 is not allowed while the database is Upgrading/,
    );
  });

  it('words warnings in the client version: a risky change and a tolerated error', () => {
    const old = hubObject({ caches: [{ name: 'tiles', memory: '100Gi', version: '7.2', replicas: 1 }] });
    const fewer = hubObject({
      caches: [{ name: 'tiles', memory: '100Gi', version: '7.2', replicas: 1 }],
      readReplicas: 1,
    });
    const verdict = decideValidation(registry, request('v1alpha1', 'UPDATE', fewer, old));
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings).toEqual([
      'spec.cacheMB: must be between 64Mi and 64Gi (tolerated: unchanged since before the rule)',
      "spec.cacheMB: the caches' memory adds up to more than 64Gi (tolerated: unchanged since before the rule)",
      'spec.replicas: reducing read replicas from 3 to 1',
    ]);
  });

  it("names a cache's field that v1alpha1 has no place for as v1's, through the list index", () => {
    const caches = [
      { name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 },
      { name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 },
    ];
    const verdict = decideValidation(registry, request('v1alpha1', 'CREATE', hubObject({ caches })));
    expect(verdict.causes?.map((cause) => cause.field)).toEqual(['spec.caches[1] (v1 field; no v1alpha1 equivalent)']);
  });

  it('leaves a hub client, and a request without requestKind, in the hub words', () => {
    const invalid = hubObject({ readReplicas: 20 });
    expect(decideValidation(registry, request('v1', 'CREATE', invalid)).causes?.[0]?.field).toBe('spec.readReplicas');
    const { requestKind: _none, ...plain } = request('v1beta1', 'CREATE', invalid);
    expect(decideValidation(registry, plain).causes?.[0]?.field).toBe('spec.readReplicas');
  });

  it("words an object sent in its own spoke version: its schema's paths are its own already, the rules' are mapped", () => {
    const object: KubeObject = {
      apiVersion: 'geo.example.com/v1alpha1',
      kind: 'GeoDatabase',
      metadata: { name: 'db' },
      spec: { postgresVersion: '18.1', postgisVersion: '3.4.2', storageGB: 0 },
    };
    const verdict = decideValidation(registry, {
      ...request('v1alpha1', 'CREATE', object),
      kind: { group: 'geo.example.com', version: 'v1alpha1', kind: 'GeoDatabase' },
    });
    // The schema's error (storageGB >= 1), then the invariants' (at least 1Gi, at v1's storage.size), all in v1alpha1 words.
    expect(verdict.causes?.map((cause) => `${cause.field}: ${cause.message}`)).toEqual([
      'spec.storageGB: Invalid value: 0: must be greater than or equal to 1',
      'spec.postgresVersion: PostgreSQL major 18 is not supported (supported: 13 to 17)',
      'spec.postgisVersion: PostGIS 3.4 does not support PostgreSQL 18 (it supports 12 to 16)',
      'spec.storageGB: must be at least 1Gi',
    ]);
  });
});
