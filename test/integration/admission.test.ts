import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../src/admission/json-patch.ts';
import { decodePatch, loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('POST /validate', () => {
  it('allows a valid GeoDatabase with a minimal, exact AdmissionReview', async () => {
    const review = await loadFixture('create-geodatabase.json');
    const answer = await server.post('/validate', review);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.json()).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: review.request.uid, allowed: true },
    });
  });

  it('denies an invalid object with 422 and names every bad field', async () => {
    const review = await loadFixture('create-geodatabase-invalid.json');
    const body = (await server.post('/validate', review)).json();
    expect(body.response.uid).toBe(review.request.uid);
    expect(body.response.allowed).toBe(false);
    expect(body.response.patch).toBeUndefined();
    expect(body.response.status.code).toBe(422);
    expect(body.response.status.reason).toBe('Invalid');
    const causes = body.response.status.details.causes.map(
      (c: { field: string; reason: string }) => `${c.field} ${c.reason}`,
    );
    expect(causes.sort()).toEqual(
      [
        'spec.postgres.version FieldValueNotSupported',
        'spec.postgres.postgis FieldValueInvalid',
        'spec.readReplicas FieldValueInvalid',
        'spec.storage.size FieldValueInvalid',
        'spec.caches[0].name FieldValueInvalid',
        'spec.caches[1].memory FieldValueInvalid',
        'spec.caches[1].replicas FieldValueInvalid',
        'spec.caches FieldValueInvalid',
        'spec.colour FieldValueUnknown',
      ].sort(),
    );
    // kubectl shows only the message: it must name every field too.
    for (const field of [
      'spec.postgres.version',
      'spec.readReplicas',
      'spec.storage.size',
      'spec.caches[0].name',
      'spec.caches[1].memory',
      'spec.colour',
    ]) {
      expect(body.response.status.message).toContain(field);
    }
    expect(body.response.status.message).toMatch(/^GeoDatabase\.geo\.example\.com "broken" is invalid: /);
  });

  it('answers a dry-run request exactly like any other', async () => {
    const review = await loadFixture('create-geodatabase-invalid.json');
    const normal = (await server.post('/validate', review)).json();
    review.request.dryRun = true;
    const dryRun = (await server.post('/validate', review)).json();
    expect(dryRun).toEqual(normal);
  });

  it('denies deleting a deletion-protected object and says how to lift the protection', async () => {
    const review = await loadFixture('delete-geodatabase-protected.json');
    const body = (await server.post('/validate', review)).json();
    expect(body.response).toMatchObject({
      uid: review.request.uid,
      allowed: false,
      status: { code: 403, reason: 'Forbidden' },
    });
    expect(body.response.status.message).toContain('geo.example.com/deletion-protection-');
  });

  it('allows deleting an unprotected object (object is null on DELETE)', async () => {
    const review = await loadFixture('delete-geodatabase-protected.json');
    delete review.request.oldObject.metadata.annotations['geo.example.com/deletion-protection'];
    expect(review.request.object).toBeNull();
    const body = (await server.post('/validate', review)).json();
    expect(body.response).toEqual({ uid: review.request.uid, allowed: true });
  });

  it('does not treat a status-subresource update as a spec change', async () => {
    const review = await loadFixture('update-geodatabase-status.json');
    // A spec difference on the status subresource is ignored by the API server; no transition rule may see it.
    review.request.object.spec.storage.size = '10Gi';
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(true);
  });

  it('denies a kind no contract knows, naming it', async () => {
    const review = await loadFixture('create-geodatabase.json');
    review.request.kind = { group: 'cache.example.com', version: 'v1', kind: 'RedisCluster' };
    review.request.object.apiVersion = 'cache.example.com/v1';
    review.request.object.kind = 'RedisCluster';
    for (const path of ['/validate', '/mutate']) {
      const body = (await server.post(path, review)).json();
      expect(body.response.allowed).toBe(false);
      expect(body.response.status.code).toBe(403);
      expect(body.response.status.message).toContain('RedisCluster.cache.example.com');
    }
  });
});

describe('POST /mutate', () => {
  it('patches in the defaults, and a second call on the patched object patches nothing', async () => {
    const review = await loadFixture('create-geodatabase.json');
    const first = (await server.post('/mutate', review)).json();
    expect(first.response).toMatchObject({ uid: review.request.uid, allowed: true, patchType: 'JSONPatch' });
    const patch = decodePatch(first.response);
    const defaulted = applyJsonPatch(review.request.object, patch);
    expect(defaulted.spec.readReplicas).toBe(0);
    expect(defaulted.spec.caches).toEqual([{ name: 'tiles', memory: '2Gi', version: '7.2', replicas: 1 }]);
    expect(defaulted.metadata.labels).toEqual({ 'geo.example.com/postgres-major': '16' });
    // Only additions: nothing the user set is rewritten.
    expect(patch.every((op: { op: string }) => op.op === 'add')).toBe(true);
    expect(defaulted.spec.storage).toEqual(review.request.object.spec.storage);

    review.request.object = defaulted;
    const second = (await server.post('/mutate', review)).json();
    expect(second.response).toEqual({ uid: review.request.uid, allowed: true });
  });

  it('never sends a patch on DELETE or on the status subresource', async () => {
    const deletion = await loadFixture('delete-geodatabase-protected.json');
    expect((await server.post('/mutate', deletion)).json().response).toEqual({
      uid: deletion.request.uid,
      allowed: true,
    });
    const status = await loadFixture('update-geodatabase-status.json');
    delete status.request.object.spec.readReplicas;
    expect((await server.post('/mutate', status)).json().response).toEqual({ uid: status.request.uid, allowed: true });
  });
});

describe('protocol errors', () => {
  it('answers a body that is not JSON with 400 and a short JSON error', async () => {
    const answer = await server.post('/validate', undefined, { raw: '{"kind": "AdmissionReview",' });
    expect(answer.status).toBe(400);
    expect(answer.json().error.code).toBe('BODY_NOT_JSON');
  });

  it.each([
    ['an array', []],
    ['the wrong apiVersion', { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} }],
    ['no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }],
    ['no uid', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } }],
  ])('answers %s with 400 REVIEW_MALFORMED', async (_label, body) => {
    const answer = await server.post('/validate', body);
    expect(answer.status).toBe(400);
    expect(answer.json().error.code).toBe('REVIEW_MALFORMED');
  });

  it('answers a CREATE without an object with 400, naming the field', async () => {
    const review = await loadFixture('create-geodatabase.json');
    delete review.request.object;
    const answer = await server.post('/mutate', review);
    expect(answer.status).toBe(400);
    expect(answer.json().error).toMatchObject({ code: 'REVIEW_MALFORMED' });
    expect(answer.json().error.message).toContain('request.object');
  });

  it('answers a wrong content type with 415', async () => {
    const review = await loadFixture('create-geodatabase.json');
    const answer = await server.post('/validate', review, { contentType: 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.json().error.code).toBe('CONTENT_TYPE_UNSUPPORTED');
  });

  it('answers a body over 7 MiB with 413', async () => {
    const review = await loadFixture('create-geodatabase.json');
    review.request.object.metadata.annotations.padding = 'x'.repeat(7 * 1024 * 1024);
    const answer = await server.post('/validate', review);
    expect(answer.status).toBe(413);
    expect(answer.json().error.code).toBe('BODY_TOO_LARGE');
  });

  it('answers a chunked body (no Content-Length) that grows over the limit with 413', async () => {
    const small = await startTestServer({ limits: { admissionBytes: 64 * 1024, conversionBytes: 64 * 1024 } });
    try {
      const answer = await small.post('/validate', undefined, { raw: Buffer.alloc(200 * 1024, 0x20), chunked: true });
      expect(answer.status).toBe(413);
      expect(answer.json().error.code).toBe('BODY_TOO_LARGE');
    } finally {
      await small.stop();
    }
  });

  it('answers an unknown path with 404', async () => {
    const answer = await server.post('/admit', {});
    expect(answer.status).toBe(404);
    expect(answer.json().error.code).toBe('ROUTE_NOT_FOUND');
  });
});

describe('observability', () => {
  it('serves health, readiness and Prometheus metrics', async () => {
    expect((await server.get('/healthz')).status).toBe(200);
    expect((await server.get('/readyz')).status).toBe(200);
    const metrics = await server.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /crdgate_admission_decisions_total\{webhook="validate",decision="denied",code="OBJECT_INVALID"\} [1-9]/,
    );
    expect(metrics.text).toMatch(/crdgate_http_requests_total\{endpoint="\/validate",code="413"\} 1/);
    expect(metrics.text).toContain('crdgate_http_request_duration_seconds_bucket');
  });

  it('logs one line per review with uid, kind, object, operation, decision and latency, never the body', async () => {
    const review = await loadFixture('create-geodatabase.json');
    review.request.uid = 'log-line-check-uid';
    await server.post('/validate', review);
    const line = server.logLines().find((l) => l.uid === 'log-line-check-uid');
    expect(line).toMatchObject({
      kind: 'GeoDatabase.geo.example.com',
      object: 'maps/tiles',
      operation: 'CREATE',
      decision: 'allowed',
      status: 200,
    });
    expect(typeof line!.latencyMs).toBe('number');
    expect(JSON.stringify(line)).not.toContain('3.4.2');
  });
});
