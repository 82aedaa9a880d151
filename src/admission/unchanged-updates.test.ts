import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { decideMutation } from './mutate.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation } from './validate.ts';

// An update that changes nothing a contract reads is answered with a plain allow: the webhook configurations do not
// send it (webhook-reach.ts), and crdgate, asked anyway, says the same. GeoDatabase reads its spec, the
// postgres-major label, the override annotation and the phase, nothing else.

const registry = createContractRegistry([geoDatabaseContract()]);

/** A stored GeoDatabase whose caches' memory breaks an invariant added after it was written. */
const stored = (): KubeObject => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: {
    name: 'db',
    namespace: 'maps',
    generation: 4,
    labels: { 'geo.example.com/postgres-major': '16' },
    finalizers: ['geo.example.com/backup'],
  },
  spec: {
    postgres: { version: '16.4', postgis: '3.4.2' },
    readReplicas: 1,
    storage: { size: '50Gi' },
    caches: [{ name: 'tiles', memory: '100Gi', version: '7.2', replicas: 1 }],
  },
  status: { phase: 'Ready', readyReplicas: 1 },
});

function update(object: KubeObject, oldObject: KubeObject, subResource?: string): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'geo.example.com', version: 'v1', kind: 'GeoDatabase' },
    operation: 'UPDATE',
    object,
    oldObject,
    ...(subResource ? { subResource } : {}),
  };
}

const edited = (change: (object: KubeObject) => void): KubeObject => {
  const object = stored();
  change(object);
  return object;
};

describe('an update that changes nothing the contract reads', () => {
  it('is allowed as it is: no reminder of what the stored object breaks, which a spec edit still gets', () => {
    const labelled = edited((object) => (object.metadata!.labels = { ...object.metadata!.labels, team: 'maps' }));
    expect(decideValidation(registry, update(labelled, stored()))).toEqual({
      allowed: true,
      code: 'ALLOWED',
      warnings: [],
      auditAnnotations: {},
    });
    const finalized = edited((object) => delete object.metadata!.finalizers);
    expect(decideValidation(registry, update(finalized, stored()))).toEqual({
      allowed: true,
      code: 'ALLOWED',
      warnings: [],
      auditAnnotations: {},
    });
    const resized = edited((object) => ((object.spec as { readReplicas: number }).readReplicas = 2));
    expect(decideValidation(registry, update(resized, stored())).warnings.join()).toContain('spec.caches[0].memory');
    // In full, the ratchet's reminder is what the plain allow leaves out, and all it leaves out.
    const inFull = decideValidation(registry, update(labelled, stored()), {}, { judgeUnchanged: true });
    expect(inFull).toMatchObject({ allowed: true, auditAnnotations: {} });
    expect(inFull.warnings).toEqual([
      'spec.caches[0].memory: must be between 64Mi and 64Gi (tolerated: unchanged since before the rule)',
      "spec.caches: the caches' memory adds up to more than 64Gi (tolerated: unchanged since before the rule)",
    ]);
  });

  it('is judged when it changes the postgres-major label, which the contract reads', () => {
    const relabelled = edited((object) => (object.metadata!.labels = { 'geo.example.com/postgres-major': '15' }));
    expect(decideValidation(registry, update(relabelled, stored())).warnings.join()).toContain('spec.caches[0].memory');
    // and the defaults put the label back in step with the spec
    expect(decideMutation(registry, update(relabelled, stored())).patch).toEqual([
      { op: 'replace', path: '/metadata/labels/geo.example.com~1postgres-major', value: '16' },
    ]);
  });

  it('fills no default into a stored object that lacks one, until a write changes what the defaults see', () => {
    const bare = edited((object) => delete (object.spec as { readReplicas?: number }).readReplicas);
    const annotated = { ...bare, metadata: { ...bare.metadata, annotations: { note: 'hi' } } };
    expect(decideMutation(registry, update(annotated, bare))).toEqual({
      allowed: true,
      code: 'ALLOWED',
      warnings: [],
      auditAnnotations: {},
    });
    const resized = { ...bare, spec: { ...(bare.spec as object), storage: { size: '60Gi' } } };
    expect(decideMutation(registry, update(resized, bare)).patch).toEqual([
      { op: 'add', path: '/spec/readReplicas', value: 0 },
    ]);
  });
});

describe('a status write', () => {
  it('is allowed as it is when it keeps the phase, and warned about when the phase moves where the machine does not go', () => {
    const counted = edited((object) => ((object.status as { readyReplicas: number }).readyReplicas = 2));
    expect(decideValidation(registry, update(counted, stored(), 'status'))).toEqual({
      allowed: true,
      code: 'ALLOWED',
      warnings: [],
      auditAnnotations: {},
    });
    const moved = edited((object) => ((object.status as { phase: string }).phase = 'Provisioning'));
    const verdict = decideValidation(registry, update(moved, stored(), 'status'));
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings.some((warning) => warning.includes('Provisioning'))).toBe(true);
  });
});
