import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { decodePatch, loadFixture, startTestServer, type TestServer } from './support/test-server.ts';
import { applyJsonPatch } from '../../src/admission/json-patch.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: { admissionBytes: 7 * 1024 * 1024, conversionBytes: 256 * 1024 } });
});
afterAll(async () => {
  await server?.stop();
});

const conversionFixture = async (): Promise<any> =>
  JSON.parse(await readFile(new URL('../fixtures/conversion/to-v1-mixed.json', import.meta.url), 'utf8'));
const withoutLabelsAndAnnotations = ({ labels: _l, annotations: _a, ...rest }: Record<string, unknown>) => rest;

describe('POST /convert', () => {
  it('converts mixed versions in order, each to the desired apiVersion, metadata untouched but labels/annotations', async () => {
    const review = await conversionFixture();
    const answer = await server.post('/convert', review);
    expect(answer.status).toBe(200);
    const body = answer.json();
    expect(body).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: review.request.uid, result: { status: 'Success' } },
    });
    const converted = body.response.convertedObjects;
    expect(converted).toHaveLength(3);
    converted.forEach((object: any, index: number) => {
      const original = review.request.objects[index];
      expect(object.apiVersion).toBe('geo.example.com/v1');
      expect(object.kind).toBe(original.kind);
      expect(withoutLabelsAndAnnotations(object.metadata)).toEqual(withoutLabelsAndAnnotations(original.metadata));
      expect(object.status).toEqual(original.status);
    });
    expect(converted[0].spec).toEqual({
      postgres: { version: '15.7', postgis: '3.4.2' },
      readReplicas: 1,
      storage: { size: '20Gi' },
      caches: [{ name: 'default', memory: '512Mi' }],
    });
    expect(converted[1].spec.readReplicas).toBe(2);
    expect(converted[2]).toEqual(review.request.objects[2]);
  });

  it('round-trips v1 -> v1alpha1 -> v1 exactly over the wire, keeping what v1alpha1 cannot hold in the annotation', async () => {
    const review = await conversionFixture();
    const v1 = (await server.post('/convert', review)).json().response.convertedObjects;
    const down = (
      await server.post('/convert', {
        ...review,
        request: { ...review.request, desiredAPIVersion: 'geo.example.com/v1alpha1', objects: v1 },
      })
    ).json();
    expect(down.response.result.status).toBe('Success');
    const beta = down.response.convertedObjects[1];
    expect(beta.spec).toEqual({
      postgresVersion: '16.4',
      postgisVersion: '3.4.2',
      replicas: 2,
      storageGB: 50,
      cacheMB: 0,
    });
    expect(beta.metadata.annotations['geo.example.com/conversion-data']).toContain('ssd');
    const up = (
      await server.post('/convert', {
        ...review,
        request: {
          ...review.request,
          desiredAPIVersion: 'geo.example.com/v1',
          objects: down.response.convertedObjects,
        },
      })
    ).json();
    expect(up.response.convertedObjects).toEqual(v1);
  });

  it('fails the whole batch, naming the failing object, with HTTP 200', async () => {
    const review = await conversionFixture();
    review.request.objects[1].apiVersion = 'geo.example.com/v2';
    const answer = await server.post('/convert', review);
    expect(answer.status).toBe(200);
    const { response } = answer.json();
    expect(response.uid).toBe(review.request.uid);
    expect(response.result.status).toBe('Failed');
    expect(response.result.message).toContain('maps/beta');
    expect(response.convertedObjects ?? []).toEqual([]);
  });

  it('answers a malformed review with 400, and a body over the configured limit with 413', async () => {
    const malformed = await server.post('/convert', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'x' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json().error).toMatchObject({
      code: 'REVIEW_MALFORMED',
      message: expect.stringContaining('desiredAPIVersion'),
    });
    const review = await conversionFixture();
    review.request.objects = Array.from({ length: 600 }, () => review.request.objects[0]);
    expect((await server.post('/convert', review)).status).toBe(413);
  });
});

describe('admission of older versions', () => {
  it('validates a v1alpha1 object against its own schema and the hub invariants', async () => {
    const review = await loadFixture('create-geodatabase.json');
    review.request.kind.version = 'v1alpha1';
    review.request.object.apiVersion = 'geo.example.com/v1alpha1';
    review.request.object.spec = { postgresVersion: '18.0', postgisVersion: '3.4.2', storageGB: 20, cacheMB: 32 };
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(false);
    const fields = body.response.status.details.causes.map((c: any) => c.field);
    // Hub paths: the invariants are written once, against v1.
    expect(fields).toEqual(expect.arrayContaining(['spec.postgres.version', 'spec.caches[0].memory']));
  });

  it('defaults a v1beta1 object with a patch that applies to the object as sent', async () => {
    const review = await loadFixture('create-geodatabase.json');
    review.request.kind.version = 'v1beta1';
    review.request.object.apiVersion = 'geo.example.com/v1beta1';
    const body = (await server.post('/mutate', review)).json();
    expect(body.response.allowed).toBe(true);
    const defaulted = applyJsonPatch(review.request.object, decodePatch(body.response));
    expect(defaulted.spec.replicas).toBe(0);
    expect(defaulted.metadata.labels).toEqual({ 'geo.example.com/postgres-major': '16' });
    // v1beta1 cannot hold a cache's version or replicas: those defaults wait for the hub-version call.
    expect(defaulted.metadata.annotations['geo.example.com/conversion-data']).toBeUndefined();
    expect(defaulted.spec.caches).toEqual(review.request.object.spec.caches);
  });
});
