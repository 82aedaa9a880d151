import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRegistry } from '../../src/commands/contracts.ts';
import { loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

// `crdgate serve --contract MODULE` loads its contracts with loadRegistry, as here.
let server: TestServer;
beforeAll(async () => {
  const module = fileURLToPath(new URL('./support/widget-contract.ts', import.meta.url));
  server = await startTestServer({ registry: await loadRegistry([module], process.cwd()) });
});
afterAll(async () => {
  await server?.stop();
});

const widgetReview = (spec: Record<string, unknown>) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '0d5c9a4e-3b8f-4f7e-9c1a-2b6e8d4f1a37',
    kind: { group: 'toys.example.com', version: 'v1', kind: 'Widget' },
    resource: { group: 'toys.example.com', version: 'v1', resource: 'widgets' },
    requestKind: { group: 'toys.example.com', version: 'v1', kind: 'Widget' },
    requestResource: { group: 'toys.example.com', version: 'v1', resource: 'widgets' },
    name: 'w',
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'admin' },
    object: { apiVersion: 'toys.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec },
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  },
});

describe("serve --contract: only the user's contracts", () => {
  it("decides the user's kind", async () => {
    const allowed = (await server.post('/validate', widgetReview({ size: 2, color: 'gold' }))).json();
    expect(allowed.response).toEqual({ uid: '0d5c9a4e-3b8f-4f7e-9c1a-2b6e8d4f1a37', allowed: true });
    const denied = (await server.post('/validate', widgetReview({ size: 5, color: 'gold' }))).json();
    expect(denied.response).toMatchObject({
      allowed: false,
      status: { code: 422, details: { causes: [{ field: 'spec.size', reason: 'FieldValueInvalid' }] } },
    });
  });

  it('answers a rule that throws with a denial (fail closed), logged at error with the stack', async () => {
    const review = widgetReview({ size: 1, color: 'explode' });
    review.request.uid = 'widget-rule-throws';
    const body = (await server.post('/validate', review)).json();
    expect(body.response).toMatchObject({
      uid: 'widget-rule-throws',
      allowed: false,
      status: { code: 500, message: expect.stringContaining('the widget rule exploded') },
    });
    const lines = server.logLines().filter((line) => line['uid'] === 'widget-rule-throws');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        code: 'INTERNAL_ERROR',
        err: expect.objectContaining({ stack: expect.stringContaining('widget-contract.ts') }),
      }),
    ]);
  });

  it('answers a GeoDatabase review with the unknown-kind denial: the built-in example is not served', async () => {
    for (const path of ['/validate', '/mutate']) {
      const review = await loadFixture('create-geodatabase.json');
      const body = (await server.post(path, review)).json();
      expect(body.response).toMatchObject({
        uid: review.request.uid,
        allowed: false,
        status: { code: 403, reason: 'Forbidden' },
      });
      expect(body.response.status.message).toBe(
        'crdgate has no contract for GeoDatabase.geo.example.com (it knows: Widget.toys.example.com)',
      );
    }
  });
});
