import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from './kube-api.ts';
import { kubeApiAt } from './kube-api-at.fixture.ts';
import { StopRequested } from '../abort/stop-signal.ts';

/** A real HTTP server that answers /ok, refuses /denied, and never answers /hang (an API server that froze). */
describe('createKubeApi and the stop signal', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url?.startsWith('/ok')) response.end('{"kind":"Status"}');
      else if (request.url?.startsWith('/denied'))
        response.writeHead(403).end('{"kind":"Status","message":"no","reason":"Forbidden"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  // The request timeout is far away: only the signal can end the request early.
  const api = () => kubeApiAt(url, 60_000);

  it('answers as before when nothing stops it', async () => {
    await expect(api().request('GET', '/ok', { signal: new AbortController().signal })).resolves.toMatchObject({
      status: 200,
    });
    await expect(api().request('GET', '/denied')).rejects.toMatchObject({ code: 403 });
    await expect(api().request('GET', '/denied')).rejects.toBeInstanceOf(KubeApiError);
  });

  it('abandons a request in flight at once when the signal is aborted', async () => {
    const stop = new AbortController();
    const startedAt = performance.now();
    const hanging = api().request('PUT', '/hang', { body: { a: 1 }, signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await expect(hanging).rejects.toBeInstanceOf(StopRequested);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });

  it('sends nothing once the signal is aborted', async () => {
    await expect(api().request('GET', '/ok', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(StopRequested);
  });
});
