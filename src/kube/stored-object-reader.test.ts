import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeApi } from './kube-api.ts';
import { kubeApiAt } from './kube-api-at.fixture.ts';
import { createStoredObjectReader, storedObjectPath } from './stored-object-reader.ts';

const ref = { group: 'geo.example.com', version: 'v1', resource: 'geodatabases', namespace: 'maps', name: 'db' };

describe('storedObjectPath', () => {
  it('is the object in the group and version asked for, namespaced or not, each part escaped', () => {
    expect(storedObjectPath(ref)).toBe('/apis/geo.example.com/v1/namespaces/maps/geodatabases/db');
    expect(storedObjectPath({ group: 'widgets.example.org', version: 'v1', resource: 'widgets', name: 'a/b?c' })).toBe(
      '/apis/widgets.example.org/v1/widgets/a%2Fb%3Fc',
    );
  });
});

/** A real HTTP server standing in for the API server: it has one object, refuses another, and records the paths. */
describe('createStoredObjectReader', () => {
  let server: Server;
  let url: string;
  const paths: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      paths.push(request.url ?? '');
      if (request.url === '/apis/geo.example.com/v1/namespaces/maps/geodatabases/db') {
        response.end(
          JSON.stringify({
            apiVersion: 'geo.example.com/v1',
            kind: 'GeoDatabase',
            metadata: { name: 'db', resourceVersion: '7' },
          }),
        );
      } else {
        response.writeHead(403).end(
          JSON.stringify({
            kind: 'Status',
            reason: 'Forbidden',
            message: 'geodatabases.geo.example.com "other" is forbidden: no get',
          }),
        );
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const api = (serverUrl = url): KubeApi => kubeApiAt(serverUrl, 5_000);

  it('reads the object with one GET', async () => {
    paths.length = 0;
    await expect(createStoredObjectReader(api())(ref)).resolves.toEqual({
      object: { apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase', metadata: { name: 'db', resourceVersion: '7' } },
    });
    expect(paths).toEqual(['/apis/geo.example.com/v1/namespaces/maps/geodatabases/db']);
  });

  it("says why it could not, with the API server's answer, and never rejects", async () => {
    await expect(createStoredObjectReader(api())({ ...ref, name: 'other' })).resolves.toEqual({
      problem: `GET ${url}/apis/geo.example.com/v1/namespaces/maps/geodatabases/other answered 403 Forbidden: geodatabases.geo.example.com "other" is forbidden: no get`,
    });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nobody = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const failed = await createStoredObjectReader(api(nobody))(ref);
    expect(failed).toEqual({
      problem: expect.stringMatching(new RegExp(`^GET ${nobody}/apis/.* failed: .*ECONNREFUSED`)),
    });
  });

  it('makes its client at the first read, and again after a failure to, until one is made', async () => {
    let attempts = 0;
    const read = createStoredObjectReader(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('no kubeconfig yet');
      return api();
    });
    expect(attempts).toBe(0);
    await expect(read(ref)).resolves.toEqual({ problem: 'crdgate has no API server client: no kubeconfig yet' });
    await expect(read(ref)).resolves.toMatchObject({ object: { kind: 'GeoDatabase' } });
    await expect(read(ref)).resolves.toMatchObject({ object: { kind: 'GeoDatabase' } });
    expect(attempts).toBe(2);
  });
});
