import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from '../render/cluster-widget-contract.fixture.ts';
import { handleAdmissionReview, storedObjectToRead } from './handler.ts';
import type { AdmissionRequest } from './review.ts';
import { scalableGeoDatabaseContract } from './scalable-geodatabase.fixture.ts';
import type { StoredObjectReading } from '../kube/stored-object-reading.ts';
import { decideScale, scaleReplicas, storedObjectNeeded, withValueAt } from './scale.ts';
import { decideValidation } from './validate.ts';

const registry = createContractRegistry([scalableGeoDatabaseContract()]);
const override = 'geo.example.com/override-transitions';

function stored(phase: string, readReplicas: number | undefined, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: {
      name: 'db',
      namespace: 'maps',
      uid: 'u-1',
      resourceVersion: '42',
      labels: { 'geo.example.com/postgres-major': '16' },
      ...(annotations ? { annotations } : {}),
    },
    spec: {
      postgres: { version: '16.4', postgis: '3.4.2' },
      ...(readReplicas === undefined ? {} : { readReplicas }),
      storage: { size: '50Gi' },
      caches: [{ name: 'tiles', memory: '2Gi', version: '7.2', replicas: 1 }],
    },
    status: { phase, readyReplicas: readReplicas ?? 0 },
  };
}

/** An autoscaling/v1 Scale as the API server makes it from a custom object: replicas left out when 0 (omitempty). */
function scale(replicas: number, resourceVersion = '42'): KubeObject {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: 'db', namespace: 'maps', uid: 'u-1', resourceVersion, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: 1 },
  };
}

function scaleRequest(from: number, to: number, clientVersion = 'v1', resourceVersion = '42'): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    requestKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    resource: { group: 'geo.example.com', version: 'v1', resource: 'geodatabases' },
    requestResource: { group: 'geo.example.com', version: clientVersion, resource: 'geodatabases' },
    subResource: 'scale',
    name: 'db',
    namespace: 'maps',
    operation: 'UPDATE',
    userInfo: { username: 'tester' },
    object: scale(to, resourceVersion),
    oldObject: scale(from, resourceVersion),
  };
}

/** The same change, sent to the object itself (as `kubectl patch` of the replicas field sends it). */
function patchRequest(old: KubeObject, readReplicas: number, clientVersion = 'v1'): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'geo.example.com', version: 'v1', kind: 'GeoDatabase' },
    requestKind: { group: 'geo.example.com', version: clientVersion, kind: 'GeoDatabase' },
    name: 'db',
    namespace: 'maps',
    operation: 'UPDATE',
    userInfo: { username: 'tester' },
    object: { ...old, spec: { ...(old.spec as object), readReplicas } },
    oldObject: old,
  };
}

const readingOf = (object: KubeObject): StoredObjectReading => ({ object });

describe('decideScale', () => {
  const states = scalableGeoDatabaseContract().transitions!.states;
  const changes: [number, number][] = [
    [1, 3],
    [3, 1],
    [2, 0],
    [0, 2],
    [2, 20],
  ];

  it.each(states)(
    'decides a scale in %s exactly as the same patch of spec.readReplicas, with and without the override',
    (phase) => {
      for (const [from, to] of changes) {
        for (const annotations of [
          undefined,
          { [override]: 'INC-7: the replicas are needed now' },
          { [override]: ' ' },
        ]) {
          const old = stored(phase, from, annotations);
          const verdict = decideScale(registry, scaleRequest(from, to), readingOf(old));
          expect(verdict, `${phase} ${from} -> ${to} ${JSON.stringify(annotations)}`).toEqual(
            decideValidation(registry, patchRequest(old, to)),
          );
        }
      }
    },
  );

  it('refuses where the machine refuses, names the field and the state; an override on the stored object is stale, since a Scale cannot give one', () => {
    const refused = decideScale(registry, scaleRequest(1, 3), readingOf(stored('Upgrading', 1)));
    expect(refused).toMatchObject({
      allowed: false,
      code: 'CHANGE_FORBIDDEN',
      subject: { group: 'geo.example.com', kind: 'GeoDatabase', name: 'db' },
    });
    expect(refused.message).toBe(
      'GeoDatabase.geo.example.com "db" cannot be changed: spec.readReplicas: changing read replicas from 1 to 3 is not allowed while the database is Upgrading (allowed in: Provisioning, Ready, Scaling, Resizing, Degraded)',
    );
    const stale = decideScale(registry, scaleRequest(1, 3), readingOf(stored('Upgrading', 1, { [override]: 'INC-7' })));
    expect(stale).toMatchObject({ allowed: false, code: 'CHANGE_FORBIDDEN', warnings: [], auditAnnotations: {} });
    expect(stale.message).toBe(
      `${refused.message}; the ${override} annotation on the object authorised only the write that set it: to override this change, give the annotation a new reason in the write that makes it`,
    );
    const ready = decideScale(registry, scaleRequest(3, 1), readingOf(stored('Ready', 3)));
    expect(ready).toMatchObject({ allowed: true, warnings: ['spec.readReplicas: reducing read replicas from 3 to 1'] });
  });

  it("words its messages in the client's version, as a patch through that version is worded", () => {
    const old = stored('Upgrading', 1);
    const verdict = decideScale(registry, scaleRequest(1, 3, 'v1beta1'), readingOf(old));
    expect(verdict).toEqual(decideValidation(registry, patchRequest(old, 3, 'v1beta1')));
    expect(verdict.message).toContain('spec.replicas: changing read replicas from 1 to 3 is not allowed');
  });

  it('sets the replicas where the object has none, and a Scale without replicas means 0, as the API server reads it', () => {
    const old = stored('Ready', undefined);
    expect(decideScale(registry, scaleRequest(0, 0), readingOf(old))).toEqual(
      decideValidation(registry, patchRequest(old, 0)),
    );
    expect(decideScale(registry, scaleRequest(0, 2), readingOf(stored('Upgrading', undefined))).message).toContain(
      'from 0 to 2',
    );
  });

  it('judges the schema and the invariants as on a patch: too many replicas is an invalid object', () => {
    const verdict = decideScale(registry, scaleRequest(1, 20), readingOf(stored('Ready', 1)));
    expect(verdict).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
    expect(verdict.causes?.map((c) => c.field)).toEqual(['spec.readReplicas']);
  });

  describe('fails closed when the state cannot be read', () => {
    const unreadable = (verdict: ReturnType<typeof decideScale>) => {
      expect(verdict).toMatchObject({ allowed: false, code: 'STATE_UNREADABLE' });
      expect(verdict.message).toMatch(
        /^the state of GeoDatabase\.geo\.example\.com "maps\/db" could not be read for a scale request: /,
      );
      return verdict.message!;
    };

    it('without a client to read with', () => {
      expect(unreadable(decideScale(registry, scaleRequest(1, 3), undefined))).toContain('no API server client');
    });

    it('when the read failed, saying why', () => {
      const message = unreadable(
        decideScale(registry, scaleRequest(1, 3), { problem: 'GET https://api/apis/... answered 403 Forbidden: no' }),
      );
      expect(message).toContain('answered 403 Forbidden: no');
    });

    it('when the stored object is not the one the Scale was made from', () => {
      expect(
        unreadable(decideScale(registry, scaleRequest(1, 3, 'v1', '41'), readingOf(stored('Ready', 1)))),
      ).toContain('the stored object is at resourceVersion 42 and the Scale at 41');
      const noVersion = scaleRequest(1, 3);
      delete noVersion.oldObject!.metadata!.resourceVersion;
      expect(unreadable(decideScale(registry, noVersion, readingOf(stored('Ready', 1))))).toContain(
        'no resourceVersion',
      );
    });

    it('when the API server answered with something else than the hub object', () => {
      expect(unreadable(decideScale(registry, scaleRequest(1, 3), { object: 'not found' }))).toContain(
        'something other than a geo.example.com/v1 GeoDatabase',
      );
      const spoke = { ...stored('Ready', 1), apiVersion: 'geo.example.com/v1beta1' };
      expect(unreadable(decideScale(registry, scaleRequest(1, 3), readingOf(spoke)))).toContain('something other than');
    });

    it('when the replicas cannot be set where the scale subresource says', () => {
      const broken = { ...stored('Ready', 1), spec: 'nothing' };
      expect(unreadable(decideScale(registry, scaleRequest(1, 3), readingOf(broken)))).toContain('no object at spec');
    });
  });

  it('denies a Scale whose replicas are not a count', () => {
    const request = scaleRequest(1, 3);
    request.object = { ...request.object!, spec: { replicas: 'three' } };
    expect(decideScale(registry, request, readingOf(stored('Ready', 1)))).toMatchObject({
      allowed: false,
      code: 'OBJECT_INVALID',
      causes: [{ field: 'spec.replicas' }],
    });
  });

  it('denies what it cannot route: no resource, a resource no contract has, a hub without a scale subresource, no name', () => {
    const { resource: _resource, ...unnamed } = scaleRequest(1, 3);
    expect(decideScale(registry, unnamed, readingOf(stored('Ready', 1)))).toMatchObject({
      allowed: false,
      code: 'KIND_UNKNOWN',
    });
    const other = { ...scaleRequest(1, 3), resource: { group: 'geo.example.com', version: 'v1', resource: 'maps' } };
    expect(decideScale(registry, other, readingOf(stored('Ready', 1)))).toMatchObject({
      allowed: false,
      code: 'KIND_UNKNOWN',
    });
    const plain = createContractRegistry([geoDatabaseContract()]);
    expect(decideScale(plain, scaleRequest(1, 3), readingOf(stored('Ready', 1)))).toMatchObject({
      allowed: false,
      code: 'CHANGE_FORBIDDEN',
    });
    const { name: _name, ...nameless } = scaleRequest(1, 3);
    expect(decideScale(registry, nameless, readingOf(stored('Ready', 1)))).toMatchObject({
      allowed: false,
      code: 'CHANGE_FORBIDDEN',
    });
  });
});

describe('storedObjectNeeded', () => {
  it('names the object behind a /scale review, in the hub version', () => {
    expect(storedObjectNeeded(registry, scaleRequest(1, 3, 'v1beta1'))).toEqual({
      group: 'geo.example.com',
      version: 'v1',
      resource: 'geodatabases',
      namespace: 'maps',
      name: 'db',
    });
  });

  it('names a cluster-scoped object without a namespace', () => {
    const base = clusterWidgetContract();
    const widget = createContractRegistry([
      {
        ...base,
        versions: base.versions.map((v) => ({
          ...v,
          subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        })),
      },
    ]);
    const request = {
      ...scaleRequest(1, 3),
      resource: { group: 'widgets.example.org', version: 'v1', resource: 'widgets' },
      namespace: '',
    };
    expect(storedObjectNeeded(widget, request)).toEqual({
      group: 'widgets.example.org',
      version: 'v1',
      resource: 'widgets',
      name: 'db',
    });
  });

  it('needs nothing for any other review, nor for one that is denied without reading', () => {
    expect(storedObjectNeeded(registry, patchRequest(stored('Ready', 1), 2))).toBeUndefined();
    expect(
      storedObjectNeeded(registry, {
        ...scaleRequest(1, 3),
        resource: { group: 'x.example.com', version: 'v1', resource: 'xs' },
      }),
    ).toBeUndefined();
    expect(storedObjectNeeded(createContractRegistry([geoDatabaseContract()]), scaleRequest(1, 3))).toBeUndefined();
  });
});

describe('the handler on a /scale review', () => {
  const review = (request: AdmissionRequest) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request,
  });

  it('asks the validating webhook only, and only for /scale, for an object to read', () => {
    expect(storedObjectToRead('validate', registry, review(scaleRequest(1, 3)))).toEqual({
      group: 'geo.example.com',
      version: 'v1',
      resource: 'geodatabases',
      namespace: 'maps',
      name: 'db',
    });
    expect(storedObjectToRead('mutate', registry, review(scaleRequest(1, 3)))).toBeUndefined();
    expect(storedObjectToRead('validate', registry, review(patchRequest(stored('Ready', 1), 2)))).toBeUndefined();
    expect(storedObjectToRead('validate', registry, { request: { subResource: 'scale' } })).toBeUndefined();
  });

  it('answers with the decision on what was read, as the API server gets it', () => {
    const outcome = handleAdmissionReview('validate', registry, review(scaleRequest(1, 3)), {
      stored: readingOf(stored('Upgrading', 1)),
    });
    expect(outcome.body).toMatchObject({
      response: {
        uid: 'uid-1',
        allowed: false,
        status: {
          code: 403,
          reason: 'Forbidden',
          details: { kind: 'GeoDatabase', name: 'db', causes: [{ field: 'spec.readReplicas' }] },
        },
      },
    });
    expect(outcome.summary).toMatchObject({
      kind: 'Scale.autoscaling',
      subResource: 'scale',
      decision: 'denied',
      code: 'CHANGE_FORBIDDEN',
    });
    const nothingRead = handleAdmissionReview('validate', registry, review(scaleRequest(1, 3)));
    expect(nothingRead.body).toMatchObject({
      response: { allowed: false, status: { code: 503, reason: 'ServiceUnavailable' } },
    });
  });
});

describe('scaleReplicas and withValueAt', () => {
  it('reads a Scale as the API server writes it', () => {
    expect(scaleReplicas(scale(0))).toBe(0);
    expect(scaleReplicas(scale(4))).toBe(4);
    expect(scaleReplicas({ spec: { replicas: -1 } })).toMatch(/whole number/);
    expect(scaleReplicas({ spec: { replicas: 1.5 } })).toMatch(/whole number/);
    expect(scaleReplicas({ spec: [] as unknown })).toMatch(/no spec object/);
    expect(scaleReplicas({})).toBe(0);
  });

  it('sets a value on a copy, making the objects on the way, and leaves the input alone', () => {
    const object: KubeObject = { metadata: { name: 'a' }, spec: { other: 1 } };
    expect(withValueAt(object, ['spec', 'scaling', 'replicas'], 3)).toEqual({
      metadata: { name: 'a' },
      spec: { other: 1, scaling: { replicas: 3 } },
    });
    expect(object).toEqual({ metadata: { name: 'a' }, spec: { other: 1 } });
    expect(withValueAt({ spec: { scaling: 7 } }, ['spec', 'scaling', 'replicas'], 3)).toBeUndefined();
    expect(withValueAt({ spec: { replicas: 1 } }, ['spec', 'replicas'], 0)).toEqual({ spec: { replicas: 0 } });
  });
});
