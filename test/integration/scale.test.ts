import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../../src/admission/scalable-geodatabase.fixture.ts';
import { createContractRegistry } from '../../src/contract/registry.ts';
import { createKubeApi } from '../../src/kube/kube-api.ts';
import { createStoredObjectReader } from '../../src/kube/stored-object-reader.ts';
import { loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

const storedPath = '/apis/geo.example.com/v1/namespaces/maps/geodatabases/tiles';

/**
 * crdgate's real server over TLS, posted the wire JSON kube-apiserver v1.36 sends for `kubectl scale` of a
 * GeoDatabase whose hub has a scale subresource on spec.readReplicas (test/fixtures/admission/
 * update-geodatabase-scale.json, recorded through the e2e test), reading the stored object from an HTTP server that
 * stands in for the API server.
 */
describe('a /scale review on the wire', () => {
  let apiServer: Server;
  let apiServerUrl: string;
  let server: TestServer;
  let unreading: TestServer;
  /** What the stand-in API server answers for the object, and every path it was asked for. */
  let answer: { status: number; body: unknown };
  const asked: string[] = [];

  const storedIn = async (phase: string, changes: (object: any) => void = () => {}) => {
    const object = structuredClone((await loadFixture('update-geodatabase.json')).request.oldObject);
    object.status.phase = phase;
    changes(object);
    answer = { status: 200, body: object };
  };

  beforeAll(async () => {
    apiServer = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      if (request.url !== storedPath)
        return void response.writeHead(404).end('{"kind":"Status","reason":"NotFound","message":"not here"}');
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => apiServer.listen(0, '127.0.0.1', resolve));
    apiServerUrl = `http://127.0.0.1:${(apiServer.address() as AddressInfo).port}`;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      // client-node refuses plain HTTP unless told to skip TLS verification, of which there is none here.
      clusters: [{ name: 'stand-in', server: apiServerUrl, skipTLSVerify: true }],
      users: [{ name: 'crdgate' }],
      contexts: [{ name: 'stand-in', cluster: 'stand-in', user: 'crdgate' }],
      currentContext: 'stand-in',
    });
    const registry = createContractRegistry([scalableGeoDatabaseContract()]);
    server = await startTestServer({
      registry,
      readStoredObject: createStoredObjectReader(createKubeApi(kubeConfig, { timeoutMs: 5_000 })),
    });
    unreading = await startTestServer({ registry });
  });
  afterAll(async () => {
    await server?.stop();
    await unreading?.stop();
    apiServer?.closeAllConnections();
    await new Promise((resolve) => apiServer?.close(resolve));
  });
  beforeEach(() => {
    asked.length = 0;
  });

  it("refuses a scale the object's state forbids, with the machine's message and one GET of the object", async () => {
    await storedIn('Upgrading');
    const review = await loadFixture('update-geodatabase-scale.json');
    const answered = await server.post('/validate', review);
    expect(answered.status).toBe(200);
    expect(answered.json()).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: '5b0c9e3a-7f21-4d6e-8a4b-2c9d1e0f3a7b',
        allowed: false,
        status: {
          code: 403,
          reason: 'Forbidden',
          message:
            'GeoDatabase.geo.example.com "tiles" cannot be changed: spec.readReplicas: changing read replicas from 2 to 3 is not allowed while the database is Upgrading (allowed in: Provisioning, Ready, Scaling, Resizing, Degraded)',
          details: {
            group: 'geo.example.com',
            kind: 'GeoDatabase',
            name: 'tiles',
            causes: [
              {
                reason: 'FieldValueForbidden',
                message:
                  'changing read replicas from 2 to 3 is not allowed while the database is Upgrading (allowed in: Provisioning, Ready, Scaling, Resizing, Degraded)',
                field: 'spec.readReplicas',
              },
            ],
          },
        },
      },
    });
    expect(asked).toEqual([`GET ${storedPath}`]);
    expect(server.logLines().find((line) => line['uid'] === review.request.uid)).toMatchObject({
      subResource: 'scale',
      decision: 'denied',
      code: 'CHANGE_FORBIDDEN',
    });
  });

  it('lets a scale through where the state allows it, with the warnings a patch gets; an override left on the object lets nothing through', async () => {
    await storedIn('Ready');
    const review = await loadFixture('update-geodatabase-scale.json');
    review.request.object.spec.replicas = 1;
    expect((await server.post('/validate', review)).json().response).toEqual({
      uid: review.request.uid,
      allowed: true,
      warnings: ['spec.readReplicas: reducing read replicas from 2 to 1'],
    });
    await storedIn(
      'Upgrading',
      (object) => (object.metadata.annotations['geo.example.com/override-transitions'] = 'INC-42: read load'),
    );
    const stale = (await server.post('/validate', await loadFixture('update-geodatabase-scale.json'))).json().response;
    expect(stale).toMatchObject({ allowed: false, status: { code: 403, reason: 'Forbidden' } });
    expect(stale.status.message).toContain(
      'geo.example.com/override-transitions annotation on the object authorised only the write that set it',
    );
    expect(stale).not.toHaveProperty('auditAnnotations');
  });

  it("words a scale through v1beta1 in v1beta1's field names", async () => {
    await storedIn('Upgrading');
    const review = await loadFixture('update-geodatabase-scale.json');
    review.request.requestResource.version = 'v1beta1';
    const { status } = (await server.post('/validate', review)).json().response;
    expect(status.message).toContain(
      '"tiles" cannot be changed: spec.replicas: changing read replicas from 2 to 3 is not allowed',
    );
    expect(status.details.causes[0].field).toBe('spec.replicas');
  });

  it('fails closed with 503 when the stored object is not the one the Scale was made from', async () => {
    await storedIn('Ready', (object) => (object.metadata.resourceVersion = '1043'));
    const response = (await server.post('/validate', await loadFixture('update-geodatabase-scale.json'))).json()
      .response;
    expect(response).toEqual({
      uid: '5b0c9e3a-7f21-4d6e-8a4b-2c9d1e0f3a7b',
      allowed: false,
      status: {
        code: 503,
        reason: 'ServiceUnavailable',
        message:
          'the state of GeoDatabase.geo.example.com "maps/tiles" could not be read for a scale request: the stored object is at resourceVersion 1043 and the Scale at 1042: the object changed in between (try again)',
      },
    });
  });

  it("fails closed when the read is refused, with the API server's answer", async () => {
    answer = {
      status: 403,
      body: {
        kind: 'Status',
        reason: 'Forbidden',
        message: 'geodatabases.geo.example.com "tiles" is forbidden: cannot get',
      },
    };
    const { status } = (await server.post('/validate', await loadFixture('update-geodatabase-scale.json'))).json()
      .response;
    expect(status).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect(status.message).toBe(
      `the state of GeoDatabase.geo.example.com "maps/tiles" could not be read for a scale request: GET ${apiServerUrl}${storedPath} answered 403 Forbidden: geodatabases.geo.example.com "tiles" is forbidden: cannot get`,
    );
  });

  it('fails closed without a client to read with', async () => {
    const { status } = (await unreading.post('/validate', await loadFixture('update-geodatabase-scale.json'))).json()
      .response;
    expect(status.code).toBe(503);
    expect(status.message).toMatch(
      /^the state of GeoDatabase\.geo\.example\.com "maps\/tiles" could not be read for a scale request: crdgate has no API server client/,
    );
    expect(asked).toEqual([]);
  });

  it('reads nothing for any other review', async () => {
    await storedIn('Ready');
    const update = await loadFixture('update-geodatabase.json');
    expect((await server.post('/validate', update)).json().response.allowed).toBe(true);
    expect((await server.post('/mutate', update)).json().response.allowed).toBe(true);
    expect(
      (await server.post('/validate', await loadFixture('update-geodatabase-status.json'))).json().response.allowed,
    ).toBe(true);
    expect(asked).toEqual([]);
  });
});
