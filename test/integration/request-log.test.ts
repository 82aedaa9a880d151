import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

// pino's numeric levels, as they appear in the JSON lines.
const debug = 20;
const info = 30;

const conversionFixture = async () =>
  JSON.parse(await readFile(new URL('../fixtures/conversion/to-v1-mixed.json', import.meta.url), 'utf8'));

/** The UPDATE fixture with readReplicas lowered: allowed, with a warning. */
async function scaleDown(uid: string): Promise<any> {
  const review = await loadFixture('update-geodatabase.json');
  review.request.uid = uid;
  review.request.object = structuredClone(review.request.oldObject);
  review.request.oldObject.spec.readReplicas = 2;
  review.request.object.spec.readReplicas = 1;
  return review;
}

async function withUid(fixture: string, uid: string): Promise<any> {
  const review = await loadFixture(fixture);
  review.request.uid = uid;
  return review;
}

describe('the request log at debug', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ logLevel: 'debug' });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const lineFor = (uid: string) => {
    const lines = server.logLines().filter((line) => line['uid'] === uid);
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };

  it('logs an allowed review with nothing to say at debug, a patched one too', async () => {
    await server.post('/validate', await withUid('create-geodatabase.json', 'log-allowed'));
    await server.post('/mutate', await withUid('create-geodatabase.json', 'log-patched'));
    expect(lineFor('log-allowed')).toMatchObject({
      level: debug,
      decision: 'allowed',
      code: 'ALLOWED',
      path: '/validate',
    });
    expect(lineFor('log-patched')).toMatchObject({ level: debug, decision: 'allowed', patched: true, path: '/mutate' });
  });

  it('logs a denial at info, with the message the user sees', async () => {
    const answer = (
      await server.post('/validate', await withUid('create-geodatabase-invalid.json', 'log-denied'))
    ).json();
    expect(answer.response.allowed).toBe(false);
    expect(lineFor('log-denied')).toMatchObject({
      level: info,
      decision: 'denied',
      code: 'OBJECT_INVALID',
      message: answer.response.status.message,
    });
  });

  it('logs an allowed review that carries warnings at info, with the warnings', async () => {
    const answer = (await server.post('/validate', await scaleDown('log-warned'))).json();
    expect(answer.response).toMatchObject({
      allowed: true,
      warnings: ['spec.readReplicas: reducing read replicas from 2 to 1'],
    });
    expect(lineFor('log-warned')).toMatchObject({
      level: info,
      decision: 'allowed',
      warnings: answer.response.warnings,
    });
  });

  it('logs a protocol rejection at info, with its status', async () => {
    const before = server.logLines().length;
    expect((await server.post('/validate', {}, { contentType: 'text/plain' })).status).toBe(415);
    expect(server.logLines().slice(before)).toEqual([
      expect.objectContaining({ level: info, path: '/validate', status: 415, code: 'CONTENT_TYPE_UNSUPPORTED' }),
    ]);
  });

  it('logs a successful conversion at debug and a failed one at info', async () => {
    const review = await conversionFixture();
    review.request.uid = 'log-converted';
    expect((await server.post('/convert', review)).json().response.result.status).toBe('Success');
    const failing = await conversionFixture();
    failing.request.uid = 'log-conversion-failed';
    failing.request.desiredAPIVersion = 'geo.example.com/v9';
    expect((await server.post('/convert', failing)).json().response.result.status).toBe('Failed');
    expect(lineFor('log-converted')).toMatchObject({ level: debug, result: 'Success' });
    expect(lineFor('log-conversion-failed')).toMatchObject({
      level: info,
      result: 'Failed',
      message: expect.stringContaining('v9'),
    });
  });

  it('logs no line for probes and scrapes', async () => {
    const before = server.logLines().length;
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await server.get(path)).status).toBe(200);
    expect(server.logLines().slice(before)).toEqual([]);
  });
});

describe('the request log at info (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ logLevel: 'info' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('writes nothing for allowed reviews, one line per denial and warning, and still counts every request', async () => {
    for (let i = 0; i < 5; i++) await server.post('/validate', await withUid('create-geodatabase.json', `quiet-${i}`));
    await server.post('/validate', await withUid('create-geodatabase-invalid.json', 'loud-denied'));
    await server.post('/validate', await scaleDown('loud-warned'));
    expect(
      server
        .logLines()
        .filter((line) => typeof line['uid'] === 'string')
        .map((line) => line['uid']),
    ).toEqual(['loud-denied', 'loud-warned']);
    const metrics = (await server.get('/metrics')).text;
    expect(metrics).toMatch(
      /crdgate_admission_decisions_total\{webhook="validate",decision="allowed",code="ALLOWED"\} 6\b/,
    );
    expect(metrics).toMatch(
      /crdgate_admission_decisions_total\{webhook="validate",decision="denied",code="OBJECT_INVALID"\} 1\b/,
    );
    expect(metrics).toMatch(/crdgate_http_requests_total\{endpoint="\/validate",code="200"\} 7\b/);
  });
});
