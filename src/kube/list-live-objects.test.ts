import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StopRequested } from '../abort/stop-signal.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { KubeApi } from './kube-api.ts';
import { kubeApiAt } from './kube-api-at.fixture.ts';
import { forEachLiveObject, type LiveResource } from './list-live-objects.ts';
import { LiveReadError } from './live-read-error.ts';
import { liveCrdPath, readLiveCrd } from './read-live-crd.ts';

const widgets: LiveResource = { group: 'example.org', version: 'v1', plural: 'widgets' };
const total = 25;

/**
 * A real HTTP server standing in for the API server: 25 widgets paged by `limit` and `continue` (the token is the
 * next index), a first continue token that has expired once (410 offering another), gadgets refused by RBAC, and
 * sprockets whose pages never come.
 */
describe('forEachLiveObject', () => {
  let server: Server;
  let url: string;
  let requests: URL[];
  let expireOnce: boolean;
  beforeAll(async () => {
    server = createServer((request, response) => {
      const asked = new URL(request.url ?? '/', 'http://x');
      requests.push(asked);
      const send = (code: number, body: unknown) =>
        response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.method !== 'GET') return send(405, { kind: 'Status', message: 'read only' });
      if (asked.pathname === '/apis/example.org/v1/widgets') {
        const from = Number(asked.searchParams.get('continue') ?? '0');
        if (expireOnce && asked.searchParams.get('continue') === '5') {
          expireOnce = false;
          return send(410, {
            kind: 'Status',
            code: 410,
            reason: 'Expired',
            message: 'too old',
            metadata: { continue: '5' },
          });
        }
        const limit = Number(asked.searchParams.get('limit'));
        const items = Array.from({ length: Math.max(0, Math.min(limit, total - from)) }, (_, i) => ({
          apiVersion: 'example.org/v1',
          kind: 'Widget',
          metadata: { name: `w${from + i}` },
        }));
        const next = from + items.length;
        return send(200, { kind: 'WidgetList', items, metadata: next < total ? { continue: String(next) } : {} });
      }
      if (asked.pathname === '/apis/example.org/v1/gadgets')
        return send(403, {
          kind: 'Status',
          code: 403,
          reason: 'Forbidden',
          message: 'gadgets.example.org is forbidden: User "ci" cannot list resource "gadgets"',
        });
      if (asked.pathname === liveCrdPath('widgets.example.org'))
        return send(200, {
          kind: 'CustomResourceDefinition',
          metadata: { name: 'widgets.example.org' },
          status: { storedVersions: ['v1'] },
        });
      if (asked.pathname === liveCrdPath('absent.example.org'))
        return send(404, {
          kind: 'Status',
          code: 404,
          reason: 'NotFound',
          message: 'not found',
          details: { name: 'absent.example.org' },
        });
      if (asked.pathname.startsWith('/apis/apiextensions.k8s.io/'))
        return send(403, {
          kind: 'Status',
          code: 403,
          reason: 'Forbidden',
          message: 'cannot get customresourcedefinitions',
        });
      // sprockets: never answered
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    requests = [];
    expireOnce = false;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const api = (): KubeApi => kubeApiAt(url, 5_000);

  const names = (pages: KubeObject[][]) => pages.flat().map((object) => object.metadata?.name);
  const bounds = { pageSize: 10, maxObjects: 1000, timeoutMs: 5_000 };

  it('hands over every object a page at a time, following continue tokens, with GETs only', async () => {
    const pages: KubeObject[][] = [];
    const end = await forEachLiveObject(api(), widgets, (page) => void pages.push(page), bounds);
    expect(end).toEqual({ complete: true, listed: total });
    expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
    expect(names(pages)).toEqual(Array.from({ length: total }, (_, i) => `w${i}`));
    expect(requests.map((r) => [r.searchParams.get('limit'), r.searchParams.get('continue')])).toEqual([
      ['10', null],
      ['10', '10'],
      ['10', '20'],
    ]);
  });

  it('stops at the count bound and says so, asking for no more than the bound', async () => {
    const pages: KubeObject[][] = [];
    const end = await forEachLiveObject(api(), widgets, (page) => void pages.push(page), { ...bounds, maxObjects: 12 });
    expect(end).toEqual({ complete: false, listed: 12, stoppedBy: 'count' });
    expect(requests.map((r) => r.searchParams.get('limit'))).toEqual(['10', '2']);
  });

  it('is complete when the bound equals the number of objects', async () => {
    const end = await forEachLiveObject(api(), widgets, () => {}, { ...bounds, pageSize: 25, maxObjects: 25 });
    expect(end).toEqual({ complete: true, listed: 25 });
  });

  it('carries on from the token a 410 offers, listing no object twice', async () => {
    expireOnce = true;
    const pages: KubeObject[][] = [];
    const end = await forEachLiveObject(api(), widgets, (page) => void pages.push(page), { ...bounds, pageSize: 5 });
    expect(end).toEqual({ complete: true, listed: total });
    expect(new Set(names(pages)).size).toBe(total);
    expect(requests.filter((r) => r.searchParams.get('continue') === '5')).toHaveLength(2);
  });

  it('stops at the time bound when a page does not come, and says so', async () => {
    const started = performance.now();
    const end = await forEachLiveObject(api(), { group: 'example.org', version: 'v1', plural: 'sprockets' }, () => {}, {
      ...bounds,
      timeoutMs: 300,
    });
    expect(end).toEqual({ complete: false, listed: 0, stoppedBy: 'time' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('waits for the limiter before each request, and gives it the signal that ends the wait', async () => {
    const order: string[] = [];
    const limiter = {
      async take(signal?: AbortSignal) {
        expect(signal).toBeInstanceOf(AbortSignal);
        order.push(`take ${requests.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    };
    await forEachLiveObject(api(), widgets, () => {}, { ...bounds, pageSize: 10, limiter });
    // A token before each of the 3 requests, each taken before its request was sent.
    expect(order).toEqual(['take 0', 'take 1', 'take 2']);
    expect(requests).toHaveLength(3);
  });

  it("rejects with StopRequested on the caller's own stop, not as a bound", async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(
      forEachLiveObject(api(), widgets, () => {}, { ...bounds, signal: stop.signal }),
    ).rejects.toBeInstanceOf(StopRequested);
  });

  it('names the resource and the permission when RBAC refuses the list', async () => {
    const failure = await forEachLiveObject(
      api(),
      { group: 'example.org', version: 'v1', plural: 'gadgets' },
      () => {},
      bounds,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LiveReadError);
    expect((failure as LiveReadError).problem).toBe('forbidden');
    expect((failure as LiveReadError).message).toContain('list gadgets.example.org');
    expect((failure as LiveReadError).message).toContain('--crd-reads gadgets.example.org');
  });

  it('reads a live CRD, answers undefined for one the cluster lacks, and names a refused one', async () => {
    expect((await readLiveCrd(api(), 'widgets.example.org'))?.status).toEqual({ storedVersions: ['v1'] });
    expect(await readLiveCrd(api(), 'absent.example.org')).toBeUndefined();
    const failure = await readLiveCrd(api(), 'hidden.example.org').catch((error: unknown) => error);
    expect((failure as LiveReadError).problem).toBe('forbidden');
    expect((failure as LiveReadError).message).toContain('customresourcedefinition hidden.example.org');
  });
});
