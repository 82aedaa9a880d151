import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { handleAdmissionReview } from './handler.ts';
import { decideMutation } from './mutate.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation } from './validate.ts';

const registry = createContractRegistry([geoDatabaseContract()]);

const stored = (): KubeObject => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps', labels: { 'geo.example.com/postgres-major': '16' } },
  spec: {
    postgres: { version: '16.4', postgis: '3.4.2' },
    readReplicas: 1,
    storage: { size: '50Gi' },
    caches: [{ name: 'tiles', memory: '2Gi', version: '7.2', replicas: 1 }],
  },
  status: { phase: 'Ready' },
});

function request(
  operation: AdmissionRequest['operation'],
  object: KubeObject | null,
  oldObject: KubeObject | null = null,
): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'geo.example.com', version: 'v1', kind: 'GeoDatabase' },
    operation,
    object,
    oldObject,
  };
}

describe('decideValidation', () => {
  it('allows a valid object', () => {
    expect(decideValidation(registry, request('CREATE', stored()))).toMatchObject({
      allowed: true,
      code: 'ALLOWED',
      warnings: [],
    });
  });

  it('collects schema and invariant errors together', () => {
    const object = stored();
    Object.assign(object.spec as object, { readReplicas: -1, postgres: { version: '17.1', postgis: '3.3.1' } });
    const verdict = decideValidation(registry, request('CREATE', object));
    expect(verdict.code).toBe('OBJECT_INVALID');
    expect(verdict.causes?.map((c) => c.field).sort()).toEqual(['spec.postgres.postgis', 'spec.readReplicas']);
  });

  it('ratchets: an error the stored object already had does not block an unrelated edit, but is reported', () => {
    const old = stored();
    (old.spec as { caches: Array<{ memory: string }> }).caches[0]!.memory = '100Gi';
    const updated = structuredClone(old);
    (updated.spec as { readReplicas: number }).readReplicas = 2;
    const verdict = decideValidation(registry, request('UPDATE', updated, old));
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings.join('\n')).toContain('spec.caches[0].memory');
  });

  it('does not ratchet an error the update touches', () => {
    const old = stored();
    (old.spec as { caches: Array<{ memory: string }> }).caches[0]!.memory = '100Gi';
    const updated = structuredClone(old);
    (updated.spec as { caches: Array<{ memory: string }> }).caches[0]!.memory = '90Gi';
    expect(decideValidation(registry, request('UPDATE', updated, old)).code).toBe('OBJECT_INVALID');
  });

  it('validates an object in the version it is written in', () => {
    const object = {
      ...stored(),
      apiVersion: 'geo.example.com/v1beta1',
      spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '10Gi' }, readReplicas: 1 },
    };
    const verdict = decideValidation(registry, request('CREATE', object));
    // readReplicas is a v1 field: in v1beta1 it is unknown.
    expect(verdict.causes?.map((c) => `${c.field} ${c.type}`)).toEqual(['spec.readReplicas FieldValueUnknown']);
  });

  it('denies an apiVersion the contract does not serve', () => {
    const object = { ...stored(), apiVersion: 'geo.example.com/v2' };
    expect(decideValidation(registry, request('CREATE', object))).toMatchObject({
      allowed: false,
      code: 'VERSION_UNKNOWN',
    });
  });

  it('denies deleting a protected object and allows an unprotected one', () => {
    const protectedDb = stored();
    protectedDb.metadata!.annotations = { 'geo.example.com/deletion-protection': 'true' };
    expect(decideValidation(registry, request('DELETE', null, protectedDb)).code).toBe('DELETION_PROTECTED');
    protectedDb.metadata!.annotations = { 'geo.example.com/deletion-protection': 'false' };
    expect(decideValidation(registry, request('DELETE', null, protectedDb)).allowed).toBe(true);
  });
});

describe('decideMutation', () => {
  it('patches nothing on an object that already carries its defaults', () => {
    expect(decideMutation(registry, request('CREATE', stored())).patch).toBeUndefined();
  });

  it('leaves a schema-invalid object to the validating webhook', () => {
    const object = stored();
    delete (object.spec as { readReplicas?: number }).readReplicas;
    (object.spec as { storage: unknown }).storage = 'big';
    const verdict = decideMutation(registry, request('CREATE', object));
    expect(verdict.allowed).toBe(true);
    expect(verdict.patch).toBeUndefined();
  });
});

describe('handleAdmissionReview', () => {
  it('fails closed with code 500 and the uid when a rule throws', () => {
    const exploding = defineContract({
      ...geoDatabaseContract(),
      identity: { ...geoDatabaseContract().identity, group: 'boom.example.com' },
      invariants: [
        () => {
          throw new Error('invariant exploded');
        },
      ],
    });
    const boom = createContractRegistry([exploding]);
    const object = { ...stored(), apiVersion: 'boom.example.com/v1' };
    const outcome = handleAdmissionReview('validate', boom, {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        ...request('CREATE', object),
        kind: { group: 'boom.example.com', version: 'v1', kind: 'GeoDatabase' },
      },
    });
    expect(outcome.httpStatus).toBe(200);
    expect(outcome.body).toMatchObject({ response: { uid: 'uid-1', allowed: false, status: { code: 500 } } });
    expect(outcome.failure).toBeInstanceOf(Error);
  });
});

describe("the hub form of an operator's kind, converted by the API server", () => {
  // GeoDatabase's versions as an operator's CRD installed with conversion None: the API server validates a v1alpha1
  // write against v1alpha1's schema, then sends the webhook the same object relabelled v1 (matchPolicy Equivalent).
  const { conversionAnnotation: _stash, ...geo } = geoDatabaseContract();
  const external = createContractRegistry([
    defineContract({ ...geo, conversions: {}, crdOwner: 'external', invariants: [], transitions: undefined }),
  ]);
  const relabelled: KubeObject = {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name: 'db', namespace: 'maps' },
    spec: { postgresVersion: '16.4', postgisVersion: '3.4.2', storageGB: 2 },
  };
  const converted = (object: KubeObject, requestVersion: string): AdmissionRequest => ({
    ...request('CREATE', object),
    requestKind: { group: 'geo.example.com', version: requestVersion, kind: 'GeoDatabase' },
  });

  it("is not held to the hub's schema when the client wrote another version: the API server validated that", () => {
    expect(decideValidation(external, converted(relabelled, 'v1alpha1'))).toMatchObject({ allowed: true });
  });

  it("is held to it when the client wrote the hub, and when crdgate's own conversion made it", () => {
    expect(decideValidation(external, converted(relabelled, 'v1'))).toMatchObject({
      allowed: false,
      code: 'OBJECT_INVALID',
    });
    expect(decideValidation(registry, converted(relabelled, 'v1alpha1'))).toMatchObject({
      allowed: false,
      code: 'OBJECT_INVALID',
    });
  });
});
