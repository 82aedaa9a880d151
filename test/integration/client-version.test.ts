import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview, geoDatabase, validSpecs } from './support/reviews.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** The object in v1, as kube-apiserver sends it to a webhook registered for v1, and the version the client wrote. */
function convertedReview(
  clientVersion: string,
  operation: 'CREATE' | 'UPDATE',
  spec: Record<string, unknown>,
  oldSpec?: Record<string, unknown>,
) {
  const gvk = (version: string) => ({ group: 'geo.example.com', version, kind: 'GeoDatabase' });
  const status = { status: { phase: 'Ready' } };
  return admissionReview(
    operation,
    geoDatabase('v1', spec, status),
    oldSpec ? geoDatabase('v1', oldSpec, status) : null,
    {
      extra: {
        requestKind: gvk(clientVersion),
        requestResource: { group: 'geo.example.com', version: clientVersion, resource: 'geodatabases' },
      },
    },
  );
}

describe('POST /validate for a client of an older version', () => {
  it('answers a v1beta1 client with its own field names, on the wire', async () => {
    const spec = {
      ...validSpecs.v1,
      readReplicas: 20,
      caches: [
        { name: 'tiles', memory: '1Gi' },
        { name: 'big', memory: '2Gi', version: '7', replicas: 1 },
      ],
    };
    const review = convertedReview('v1beta1', 'CREATE', spec);
    const answer = await server.post('/validate', review);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: review.request.uid,
        allowed: false,
        status: {
          code: 422,
          reason: 'Invalid',
          message:
            'GeoDatabase.geo.example.com "db" is invalid: spec.replicas: Invalid value: 20: must be less than or equal to 15, ' +
            'spec.caches[1].version (v1 field; no v1beta1 equivalent): Invalid value: "7": spec.caches[1].version (v1 field; no v1beta1 equivalent) in body should match \'^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$\'',
          details: {
            group: 'geo.example.com',
            kind: 'GeoDatabase',
            name: 'db',
            causes: [
              {
                reason: 'FieldValueInvalid',
                message: 'Invalid value: 20: must be less than or equal to 15',
                field: 'spec.replicas',
              },
              {
                reason: 'FieldValueInvalid',
                message:
                  'Invalid value: "7": spec.caches[1].version (v1 field; no v1beta1 equivalent) in body should match \'^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$\'',
                field: 'spec.caches[1].version (v1 field; no v1beta1 equivalent)',
              },
            ],
          },
        },
      },
    });
  });

  it("sends a v1beta1 client's warnings in its own field names", async () => {
    const answer = await server.post(
      '/validate',
      convertedReview(
        'v1beta1',
        'UPDATE',
        { ...validSpecs.v1, readReplicas: 1 },
        { ...validSpecs.v1, readReplicas: 3 },
      ),
    );
    expect(answer.json().response).toMatchObject({
      allowed: true,
      warnings: ['spec.replicas: reducing read replicas from 3 to 1'],
    });
  });

  it('answers a v1 client in v1 words', async () => {
    const answer = await server.post(
      '/validate',
      convertedReview('v1', 'CREATE', { ...validSpecs.v1, readReplicas: 20 }),
    );
    expect(answer.json().response.status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 20: must be less than or equal to 15',
        field: 'spec.readReplicas',
      },
    ]);
  });
});
