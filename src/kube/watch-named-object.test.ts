import { describe, expect, it } from 'vitest';
import {
  KubeApiError,
  KubeTransportError,
  type KubeRequestOptions,
  type KubeResponse,
  type KubeWatchApi,
  type WatchEvent,
} from './kube-api.ts';
import { watchNamedObject, WatchErrorEvent, type FollowState } from './watch-named-object.ts';

// The resume logic against a fake API: each call takes the next step of a script. The real API server is in
// test/e2e/owner-crd-drift.e2e.test.ts; this covers what is hard to provoke there (410s, broken connections).

type Step =
  | { list: { resourceVersion: string; items: Record<string, unknown>[] } }
  | { fail: Error }
  | { watch: WatchEvent[]; then?: Error };

const crd = (resourceVersion: string, field = 'a') => ({
  metadata: { name: 'dbclusters.dbops.example.com', resourceVersion },
  spec: { field },
});
const gone = (): KubeApiError =>
  new KubeApiError(410, { reason: 'Expired', message: 'too old resource version' }, {}, 'WATCH');

interface Run {
  calls: string[];
  objects: (string | undefined)[];
  states: string[];
  sleeps: number[];
}

async function run(script: Step[]): Promise<Run> {
  const controller = new AbortController();
  const result: Run = { calls: [], objects: [], states: [], sleeps: [] };
  const next = (kind: 'list' | 'watch'): Step => {
    const step = script.shift();
    if (step === undefined) {
      // The call that found the script done is not one the test expects.
      result.calls.pop();
      controller.abort();
      throw new Error('script done');
    }
    if (!('fail' in step) && !(kind in step))
      throw new Error(`the script expected ${Object.keys(step)[0]}, the watcher called ${kind}`);
    return step;
  };
  const api: KubeWatchApi = {
    server: 'https://fake',
    async request(method, path, options?: KubeRequestOptions): Promise<KubeResponse> {
      result.calls.push(`${method} ${path}?${new URLSearchParams(options?.query).toString()}`);
      const step = next('list');
      if ('fail' in step) throw step.fail;
      const { list } = step as { list: { resourceVersion: string; items: Record<string, unknown>[] } };
      return { status: 200, body: { metadata: { resourceVersion: list.resourceVersion }, items: list.items } };
    },
    async watch(path, query, onEvent, _signal, onOpen) {
      result.calls.push(`WATCH ${path}?${new URLSearchParams(query).toString()}`);
      const step = next('watch');
      if ('fail' in step) throw step.fail;
      const { watch, then } = step as { watch: WatchEvent[]; then?: Error };
      onOpen?.();
      for (const event of watch) onEvent(event);
      if (then) throw then;
    },
  };
  await watchNamedObject(api, {
    collectionPath: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    name: 'dbclusters.dbops.example.com',
    watchTimeoutSeconds: 60,
    onObject: (object) =>
      result.objects.push(
        object === undefined
          ? undefined
          : `${(object.metadata as { resourceVersion: string }).resourceVersion}:${(object.spec as { field: string }).field}`,
      ),
    onState: (state: FollowState) =>
      result.states.push(
        state.following
          ? 'following'
          : `not following (${(state.error as Error).name} ${(state.error as Error).message}) retry in ${state.retryInMs}`,
      ),
    signal: controller.signal,
    backoffMs: (failures) => failures * 100,
    sleep: async (ms) => {
      result.sleeps.push(ms);
    },
  });
  return result;
}

const list = (resourceVersion: string, ...items: Record<string, unknown>[]): Step => ({
  list: { resourceVersion, items },
});
const selector = 'fieldSelector=metadata.name%3Ddbclusters.dbops.example.com';
const listCall = `GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions?${selector}`;
const watchCall = (resourceVersion: string) =>
  `WATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions?${selector}&resourceVersion=${resourceVersion}&timeoutSeconds=60&allowWatchBookmarks=true`;

describe('watchNamedObject', () => {
  it('lists the one object by field selector, watches from the list, and resumes each ended watch from the last resourceVersion, bookmarks too', async () => {
    const result = await run([
      list('10', crd('9')),
      {
        watch: [
          { type: 'MODIFIED', object: crd('11', 'b') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } },
        ],
      },
      { watch: [{ type: 'DELETED', object: crd('16', 'b') }] },
      { watch: [{ type: 'ADDED', object: crd('20', 'c') }] },
    ]);
    expect(result.calls).toEqual([listCall, watchCall('10'), watchCall('15'), watchCall('16')]);
    expect(result.objects).toEqual(['9:a', '11:b', undefined, '20:c']);
    // Following from the list on, never interrupted: a watch the server ends is no failure.
    expect(result.states).toEqual(['following']);
    expect(result.sleeps).toEqual([]);
  });

  it('hands undefined when no object has the name', async () => {
    const result = await run([list('3'), { watch: [{ type: 'ADDED', object: crd('4') }] }]);
    expect(result.objects).toEqual([undefined, '4:a']);
  });

  it('after a broken connection, waits and watches again from where it was, without listing', async () => {
    const result = await run([
      list('10', crd('9')),
      { watch: [{ type: 'MODIFIED', object: crd('12', 'b') }], then: new KubeTransportError('WATCH: ECONNRESET') },
      { fail: new KubeTransportError('WATCH: ECONNREFUSED') },
      { watch: [{ type: 'MODIFIED', object: crd('13', 'c') }] },
    ]);
    expect(result.calls).toEqual([listCall, watchCall('10'), watchCall('12'), watchCall('12')]);
    expect(result.objects).toEqual(['9:a', '12:b', '13:c']);
    expect(result.states).toEqual([
      'following',
      'not following (KubeTransportError WATCH: ECONNRESET) retry in 100',
      'not following (KubeTransportError WATCH: ECONNREFUSED) retry in 200',
      'following',
    ]);
    expect(result.sleeps).toEqual([100, 200]);
  });

  it('lists again at once when the resourceVersion is too old: a 410 ERROR event, or a 410 answer', async () => {
    const result = await run([
      list('10', crd('9')),
      {
        watch: [
          {
            type: 'ERROR',
            object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (40)' },
          },
        ],
      },
      list('41', crd('30', 'b')),
      { fail: gone() },
      list('50', crd('45', 'c')),
      { watch: [] },
    ]);
    expect(result.calls).toEqual([listCall, watchCall('10'), listCall, watchCall('41'), listCall, watchCall('50')]);
    expect(result.objects).toEqual(['9:a', '30:b', '45:c']);
    expect(result.states).toEqual(['following']);
    expect(result.sleeps).toEqual([]);
  });

  it('reports a refused list (RBAC) and backs off more at each failure in a row, until one succeeds', async () => {
    const forbidden = () =>
      new KubeApiError(403, { reason: 'Forbidden', message: 'customresourcedefinitions is forbidden' }, {}, 'GET');
    const result = await run([
      { fail: forbidden() },
      { fail: forbidden() },
      { fail: forbidden() },
      list('7', crd('6')),
      { watch: [] },
    ]);
    expect(result.sleeps).toEqual([100, 200, 300]);
    expect(result.states.at(-1)).toBe('following');
    expect(
      result.states
        .slice(0, 3)
        .every((state) => state.startsWith('not following (KubeApiError customresourcedefinitions is forbidden)')),
    ).toBe(true);
    expect(result.calls.filter((call) => call === listCall)).toHaveLength(4);
  });

  it('takes an ERROR event other than 410 as a failure, and resumes from its resourceVersion after the wait', async () => {
    const result = await run([
      list('10', crd('9')),
      { watch: [{ type: 'ERROR', object: { code: 500, message: 'etcd is unhappy' } }] },
      { watch: [] },
    ]);
    expect(result.states).toEqual([
      'following',
      `not following (${new WatchErrorEvent({}).name} the watch ended with an error (500): etcd is unhappy) retry in 100`,
      'following',
    ]);
    expect(result.calls).toEqual([listCall, watchCall('10'), watchCall('10')]);
  });

  it('stops at once when the signal aborts, mid-wait too', async () => {
    const controller = new AbortController();
    const api: KubeWatchApi = {
      server: 'https://fake',
      request: async () => {
        throw new KubeTransportError('down');
      },
      watch: async () => {},
    };
    const stopped = watchNamedObject(api, {
      collectionPath: '/x',
      name: 'y',
      onObject: () => {},
      onState: () => controller.abort(),
      signal: controller.signal,
      backoffMs: () => 3_600_000,
    });
    await expect(stopped).resolves.toBeUndefined();
  });
});
