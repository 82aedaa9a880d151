import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdUpdateReview, pipeCrd } from '../../src/crd-gate/crd-gate.fixture.ts';
import { crdRevisionOverrideAnnotation } from '../../src/crd-gate/decide-crd-revision.ts';
import { liveObjectJudge } from '../../src/crd-gate/live-object-judge.ts';
import { readLiveObjects } from '../../src/crd-gate/read-live-objects.ts';
import { kubeApiAt } from '../../src/kube/kube-api-at.fixture.ts';
import type { LiveListBounds } from '../../src/kube/list-live-objects.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

const pipes = Array.from({ length: 12 }, (_, i) => ({
  apiVersion: 'gate.example.com/v1',
  kind: 'Pipe',
  metadata: {
    name: `pipe-${i}`,
    namespace: i % 2 ? 'east' : 'west',
    uid: `uid-${i}`,
    resourceVersion: String(100 + i),
  },
  // Four of them hold a colour.
  spec: { size: i, ...(i % 3 === 0 ? { colour: 'red' } : {}) },
}));

/**
 * The CRD gate on crdgate's real server over TLS: the AdmissionReview kube-apiserver sends for an update of a CRD,
 * the live objects listed from an HTTP server standing in for the API server and judged with the engine, and the
 * answer's wire JSON.
 */
describe('the CRD gate on the wire', () => {
  let apiServer: Server;
  let gated: TestServer;
  let tightlyBound: TestServer;
  let ungated: TestServer;
  const listed: string[] = [];

  const start = (api: ReturnType<typeof kubeApiAt>, bounds: LiveListBounds) =>
    startTestServer({
      crdGate: {
        readLive: (oldCrd, newCrd) =>
          readLiveObjects({ api: async () => api, bounds, judgeFor: liveObjectJudge }, oldCrd, newCrd),
      },
    });

  beforeAll(async () => {
    apiServer = createServer((request, response) => {
      listed.push(`${request.method} ${request.url}`);
      const asked = new URL(request.url ?? '/', 'http://x');
      if (asked.pathname !== '/apis/gate.example.com/v1/pipes')
        return void response.writeHead(404).end('{"kind":"Status","reason":"NotFound","message":"not here"}');
      const from = Number(asked.searchParams.get('continue') ?? '0');
      const items = pipes.slice(from, from + Number(asked.searchParams.get('limit')));
      const next = from + items.length;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ kind: 'PipeList', items, metadata: next < pipes.length ? { continue: String(next) } : {} }),
        );
    });
    await new Promise<void>((resolve) => apiServer.listen(0, '127.0.0.1', resolve));
    const api = kubeApiAt(`http://127.0.0.1:${(apiServer.address() as AddressInfo).port}`, 5_000);
    gated = await start(api, { pageSize: 5, maxObjects: 100, timeoutMs: 5_000 });
    tightlyBound = await start(api, { pageSize: 5, maxObjects: 10, timeoutMs: 5_000 });
    ungated = await startTestServer();
  });
  afterAll(async () => {
    await Promise.all([gated?.stop(), tightlyBound?.stop(), ungated?.stop()]);
    apiServer?.closeAllConnections();
    await new Promise((resolve) => apiServer?.close(resolve));
  });

  const withoutColour = pipeCrd({ fields: { size: { type: 'integer' } } });

  it('refuses a revision that drops a field live objects hold: 403 naming the rule, the objects it drops data of, and the override', async () => {
    listed.length = 0;
    const answer = await gated.post('/crd-gate', crdUpdateReview(pipeCrd(), withoutColour));
    expect(answer.status).toBe(200);
    const body = answer.json();
    expect(Object.keys(body).sort()).toEqual(['apiVersion', 'kind', 'response']);
    expect(body).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    expect(Object.keys(body.response).sort()).toEqual(['allowed', 'status', 'uid']);
    expect(body.response).toMatchObject({
      uid: 'c0ffee00-0000-4000-8000-000000000042',
      allowed: false,
      status: { code: 403, reason: 'Forbidden' },
    });
    const message: string = body.response.status.message;
    expect(message).toContain('existingFieldRemoval ×1 (v1 spec.colour)');
    expect(message).toMatch(
      /of 12 live objects: fieldDroppedOnRead \(4 objects, e\.g\. west\/pipe-0 v1 spec\.colour\)/,
    );
    expect(message).toContain(crdRevisionOverrideAnnotation);
    // Read only, a page at a time, across namespaces.
    expect(listed).toEqual([
      'GET /apis/gate.example.com/v1/pipes?limit=5',
      'GET /apis/gate.example.com/v1/pipes?limit=5&continue=5',
      'GET /apis/gate.example.com/v1/pipes?limit=5&continue=10',
    ]);
  });

  it('lets a safe revision through, warning of what it cannot see', async () => {
    const withShape = pipeCrd({
      fields: { size: { type: 'integer' }, colour: { type: 'string' }, shape: { type: 'string' } },
    });
    const body = (await gated.post('/crd-gate', crdUpdateReview(pipeCrd(), withShape))).json();
    // spec.shape was pruned before: etcd may hold values there that reads would show again.
    expect(body.response).toEqual({
      uid: 'c0ffee00-0000-4000-8000-000000000042',
      allowed: true,
      warnings: [expect.stringMatching(/^prunedFieldsMayReturn \(the revision\): /)],
    });
  });

  it('lets the revision through once with the override: a warning and the audit annotation on the wire', async () => {
    const overriding = pipeCrd({
      fields: { size: { type: 'integer' } },
      annotations: { [crdRevisionOverrideAnnotation]: 'colour moved to labels' },
    });
    const body = (await gated.post('/crd-gate', crdUpdateReview(pipeCrd(), overriding))).json();
    expect(body.response.allowed).toBe(true);
    expect(body.response.warnings).toEqual([
      `${crdRevisionOverrideAnnotation}: applying an unsafe revision of pipes.gate.example.com; reason: "colour moved to labels"`,
    ]);
    expect(Object.keys(body.response.auditAnnotations)).toEqual(['override-crd-revision']);
    expect(body.response.auditAnnotations['override-crd-revision']).toContain('fieldDroppedOnRead');
  });

  it('past its count bound decides on the rules alone, and warns so', async () => {
    const body = (await tightlyBound.post('/crd-gate', crdUpdateReview(pipeCrd(), withoutColour))).json();
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.message).not.toContain('fieldDroppedOnRead');
    expect(body.response.warnings).toEqual([
      expect.stringContaining('the live objects were not judged (more than 10 objects'),
    ]);
  });

  it('answers a malformed review 400 as the other webhooks do, and is not served without --crd-gate', async () => {
    const malformed = await gated.post('/crd-gate', { kind: 'AdmissionReview' });
    expect(malformed.status).toBe(400);
    expect(malformed.json().error.code).toBe('REVIEW_MALFORMED');
    const absent = await ungated.post('/crd-gate', crdUpdateReview(pipeCrd(), withoutColour));
    expect(absent.status).toBe(404);
    expect(absent.json().error.code).toBe('ROUTE_NOT_FOUND');
  });
});
