import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { reviewConversion, type ConversionReviewResponse } from './review-conversion.ts';

const registry = createContractRegistry([geoDatabaseContract()]);
const stashKey = 'geo.example.com/conversion-data';

function geoDatabase(version: string, name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: `geo.example.com/${version}`,
    kind: 'GeoDatabase',
    metadata: {
      name,
      namespace: 'maps',
      uid: `uid-${name}`,
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2024-05-01T10:00:00Z',
      labels: { team: 'geo' },
      annotations: { owner: 'ana' },
      finalizers: ['geo.example.com/cleanup'],
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    },
    spec,
    status: { phase: 'Ready', observedGeneration: 3 },
  };
}

const hubSpec = {
  postgres: { version: '16.4', postgis: '3.4.2' },
  readReplicas: 2,
  storage: { size: '50Gi', storageClassName: 'ssd' },
  caches: [{ name: 'default', version: '7.2', memory: '2Gi', replicas: 1 }],
};
const objects = [
  geoDatabase('v1', 'a', hubSpec),
  geoDatabase('v1alpha1', 'b', {
    postgresVersion: '15.2',
    postgisVersion: '3.3.4',
    replicas: 1,
    storageGB: 20,
    cacheMB: 0,
  }),
  geoDatabase('v1beta1', 'c', {
    postgres: { version: '14.9', postgis: '3.4.0' },
    replicas: 0,
    storage: { size: '10Gi' },
    caches: [],
  }),
  geoDatabase('v1beta1', 'd', { postgres: { version: '17.0', postgis: '3.5.0' }, storage: { size: '1.5Gi' } }),
];

function review(desiredAPIVersion: string, requestObjects: unknown[]) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: '705ab4f5-6393-11e8-b7cc-42010a800002', desiredAPIVersion, objects: requestObjects },
  };
}

function answered(body: unknown): ConversionReviewResponse {
  const outcome = reviewConversion(body, registry);
  if (outcome.status !== 200) throw new Error(`expected 200, got ${JSON.stringify(outcome)}`);
  // What goes on the wire, so that nothing passes here that JSON would not carry.
  return JSON.parse(JSON.stringify(outcome.review)) as ConversionReviewResponse;
}

describe('reviewConversion', () => {
  it.each(['v1', 'v1beta1', 'v1alpha1'])(
    'converts objects of mixed versions to %s, in order, with their metadata',
    (version) => {
      const desired = `geo.example.com/${version}`;
      const { apiVersion, kind, response } = answered(review(desired, objects));
      expect({ apiVersion, kind }).toEqual({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' });
      expect(response.uid).toBe('705ab4f5-6393-11e8-b7cc-42010a800002');
      expect(response.result).toEqual({ status: 'Success' });
      expect(response.convertedObjects).toHaveLength(objects.length);
      response.convertedObjects.forEach((converted, index) => {
        const original = objects[index]!;
        expect(converted.apiVersion).toBe(desired);
        expect(converted.kind).toBe('GeoDatabase');
        expect(converted.status).toEqual(original.status);
        const { annotations, labels, ...metadata } = converted.metadata!;
        const { annotations: originalAnnotations, labels: originalLabels, ...originalMetadata } = original.metadata!;
        expect(metadata).toEqual(originalMetadata);
        expect(labels).toEqual(originalLabels);
        const { [stashKey]: _stash, ...otherAnnotations } = annotations ?? {};
        expect(otherAnnotations).toEqual(originalAnnotations);
      });
    },
  );

  it('converts to the hub and back to what each object was', () => {
    const toHub = answered(review('geo.example.com/v1', objects)).response.convertedObjects;
    const back = objects.map(
      (object, index) => answered(review(object.apiVersion!, [toHub[index]])).response.convertedObjects[0],
    );
    expect(back).toEqual(objects);
  });

  it('answers an empty batch with success', () => {
    expect(answered(review('geo.example.com/v1', [])).response).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      convertedObjects: [],
      result: { status: 'Success' },
    });
  });

  it('fails the whole batch when one object fails, naming it and both versions', () => {
    const broken = geoDatabase('v1alpha1', 'broken', { storageGB: 'ten' });
    const { response } = answered(review('geo.example.com/v1', [objects[0], broken, objects[1]]));
    expect(response.convertedObjects).toEqual([]);
    expect(response.result).toEqual({
      status: 'Failed',
      message:
        'cannot convert GeoDatabase maps/broken from geo.example.com/v1alpha1 to geo.example.com/v1: ' +
        'spec.storageGB must be a whole number of GiB, 0 or more, not "ten"',
    });
  });

  it('fails for a version the contract does not declare', () => {
    const { response } = answered(review('geo.example.com/v2', [objects[0]]));
    expect(response.result.status).toBe('Failed');
    expect(response.result).toMatchObject({
      message: expect.stringContaining('maps/a: geo.example.com/v2 is not a version of geodatabases.geo.example.com'),
    });
  });

  it('fails for a kind no contract knows, saying so', () => {
    const stranger = { apiVersion: 'other.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'x' } };
    const { response } = answered(review('other.example.com/v2', [stranger]));
    expect(response.result).toEqual({
      status: 'Failed',
      message:
        'cannot convert Widget x/w from other.example.com/v1 to other.example.com/v2: crdgate has no contract for kind Widget in group other.example.com',
    });
  });

  it('answers a malformed envelope with 400 and a code', () => {
    expect(reviewConversion({ kind: 'ConversionReview' }, registry)).toEqual({
      status: 400,
      error: {
        code: 'REVIEW_MALFORMED',
        message: expect.stringContaining(
          'expected apiVersion apiextensions.k8s.io/v1 and kind ConversionReview, got nothing and "ConversionReview"',
        ),
      },
    });
    expect(reviewConversion(review('geo.example.com/v1', [{ kind: 'GeoDatabase' }]), registry)).toMatchObject({
      status: 400,
      error: { code: 'REVIEW_MALFORMED', message: expect.stringContaining('request.objects[0] has no apiVersion') },
    });
    expect(reviewConversion('{}', registry)).toMatchObject({ status: 400, error: { code: 'REVIEW_MALFORMED' } });
  });

  it('converts a page of 500 objects without copying what it does not change', () => {
    const spec = { postgres: { version: '14.9', postgis: '3.4.0' }, storage: { size: '10Gi' } };
    const page = Array.from({ length: 500 }, (_, index) =>
      geoDatabase(index % 2 ? 'v1beta1' : 'v1', `db-${index}`, spec),
    );
    const outcome = reviewConversion(review('geo.example.com/v1', page), registry);
    if (outcome.status !== 200) throw new Error('expected 200');
    expect(outcome.review.response.convertedObjects).toHaveLength(500);
    expect(outcome.review.response.convertedObjects[7]!.status).toBe(page[7]!.status);
  });

  it('fails an object nested deeper than any real one with a message, instead of overflowing the stack', () => {
    let labels: unknown = 'x';
    for (let level = 0; level < 6000; level++) labels = { a: labels };
    // In the status: deep metadata is no object the API server could send (a label is a string), refused earlier.
    const deep = { ...geoDatabase('v1', 'deep', hubSpec), status: labels };
    const { response } = answered(review('geo.example.com/v1alpha1', [deep]));
    expect(response.result).toMatchObject({ status: 'Failed', message: expect.stringContaining('nested more than') });
    expect(response.convertedObjects).toEqual([]);
  });
});
