import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

/** The UPDATE fixture (stored object Ready), with the new object edited. */
async function update(phase: string, edit: (spec: any, metadata: any) => void): Promise<any> {
  const review = await loadFixture('update-geodatabase.json');
  review.request.oldObject.status.phase = phase;
  review.request.object = structuredClone(review.request.oldObject);
  edit(review.request.object.spec, review.request.object.metadata);
  return review;
}

describe('transitions on the wire', () => {
  it('refuses an unsupported change with 403 and a message naming field, change and reason', async () => {
    const review = await update('Ready', (spec) => (spec.storage.size = '20Gi'));
    const body = (await server.post('/validate', review)).json();
    expect(body.response).toMatchObject({
      uid: review.request.uid,
      allowed: false,
      status: { code: 403, reason: 'Forbidden' },
    });
    expect(body.response.status.message).toContain(
      'spec.storage.size: shrinking storage from 50Gi to 20Gi is unsupported: volumes cannot shrink',
    );
    expect(body.response.status.details.causes).toEqual([
      expect.objectContaining({ field: 'spec.storage.size', reason: 'FieldValueForbidden' }),
    ]);
  });

  it('refuses a supported change in a state that forbids it, naming where it is allowed', async () => {
    const review = await update('Upgrading', (spec) => (spec.postgres.version = '16.6'));
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.message).toContain(
      'spec.postgres.version: minor upgrade 16.4 -> 16.6 is not allowed while the database is Upgrading (allowed in: Ready)',
    );
  });

  it('refuses two exclusive changes in one update', async () => {
    const review = await update('Ready', (spec) => {
      spec.storage.size = '100Gi';
      spec.postgres.version = '16.6';
    });
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.details.causes.map((c: any) => c.field).sort()).toEqual([
      'spec.postgres.version',
      'spec.storage.size',
    ]);
  });

  it('allows a scale-down with a warning', async () => {
    const review = await update('Ready', (spec) => (spec.readReplicas = 1));
    const body = (await server.post('/validate', review)).json();
    expect(body.response).toEqual({
      uid: review.request.uid,
      allowed: true,
      warnings: ['spec.readReplicas: reducing read replicas from 2 to 1'],
    });
  });

  it('lets the override annotation push a supported change through, with a warning and an audit annotation', async () => {
    const review = await update('Upgrading', (spec, metadata) => {
      spec.postgres.version = '16.6';
      metadata.annotations['geo.example.com/override-transitions'] = 'INC-4711: patch release for a CVE';
    });
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(true);
    expect(body.response.warnings.join('\n')).toContain('INC-4711');
    expect(Object.keys(body.response.auditAnnotations)).toEqual(['override-transitions']);
    expect(body.response.auditAnnotations['override-transitions']).toContain('INC-4711');
    // The API server prefixes audit keys with the webhook name and a "/": the key itself must hold none.
    expect(Object.keys(body.response.auditAnnotations)[0]).not.toContain('/');
  });

  it('never lets the override push an unsupported change through', async () => {
    const review = await update('Ready', (spec, metadata) => {
      spec.postgres.version = '17.0';
      spec.postgres.postgis = '3.5.0';
      metadata.annotations['geo.example.com/override-transitions'] = 'please';
    });
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(false);
    expect(body.response.status.message).toContain('spec.postgres.version');
  });

  it('warns, but allows, a status update whose phase move the machine does not expect', async () => {
    const review = await loadFixture('update-geodatabase-status.json');
    review.request.oldObject.status.phase = 'Pending';
    review.request.object.status.phase = 'Upgrading';
    const body = (await server.post('/validate', review)).json();
    expect(body.response.allowed).toBe(true);
    expect(body.response.warnings).toEqual([expect.stringContaining('Pending -> Upgrading')]);
  });
});
