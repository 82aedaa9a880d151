import { describe, expect, it } from 'vitest';
import { KubeApiError, type KubeApi, type KubeResponse } from '../kube/kube-api.ts';
import { withRetries } from './retry-policy.ts';
import {
  describeWaiting,
  tallyShards,
  parseRecordRef,
  RecordFormatError,
  recordShardResult,
  shardKey,
  type Send,
  type ShardResult,
} from './shard-record.ts';

const expected = { generation: 4, storageVersion: 'v1' };
const result = (overrides: Partial<ShardResult> = {}): string =>
  JSON.stringify({
    generation: 4,
    storageVersion: 'v1',
    result: 'succeeded',
    objects: 10,
    finishedAt: '2025-01-01T00:00:00Z',
    ...overrides,
  });

describe('tallyShards', () => {
  it('is complete only when every shard succeeded for this generation and storage version', () => {
    const data = { 'shard-0-of-3': result(), 'shard-1-of-3': result(), 'shard-2-of-3': result() };
    expect(tallyShards(data, 3, expected)).toEqual({
      complete: true,
      succeeded: [0, 1, 2],
      failed: [],
      missing: [],
      stale: [],
    });
  });

  it('tells missing, failed and stale shards apart', () => {
    const data = {
      'shard-0-of-5': result(),
      'shard-1-of-5': result({ result: 'failed' }),
      'shard-2-of-5': result({ generation: 3 }),
      'shard-3-of-5': result({ storageVersion: 'v1beta1' }),
    };
    expect(tallyShards(data, 5, expected)).toEqual({
      complete: false,
      succeeded: [0],
      failed: [1],
      missing: [4],
      stale: [2, 3],
    });
  });

  it('ignores keys of a run split into another number of shards, and takes an unreadable value as no result', () => {
    const data = {
      'shard-0-of-2': result(),
      'shard-1-of-2': result(),
      'shard-0-of-1': 'not json',
      'shard-0-of-3': '{"generation":"4"}',
    };
    expect(tallyShards(data, 1, expected)).toMatchObject({ complete: false, missing: [0] });
    expect(tallyShards(data, 3, expected)).toMatchObject({ complete: false, missing: [0, 1, 2] });
    expect(tallyShards(undefined, 2, expected)).toMatchObject({ complete: false, missing: [0, 1] });
  });

  it('names every shard that holds the trim back', () => {
    const tally = tallyShards({ 'shard-0-of-4': result(), 'shard-2-of-4': result({ result: 'failed' }) }, 4, expected);
    expect(describeWaiting(tally, expected)).toBe(
      'waiting for shards 1, 3; shard 2 failed (run it again); 1 of 4 succeeded for generation 4, storage version v1',
    );
    const stale = tallyShards({ 'shard-0-of-2': result(), 'shard-1-of-2': result({ generation: 2 }) }, 2, expected);
    expect(describeWaiting(stale, expected)).toBe(
      'shard 1 recorded a result for another CRD generation or storage version (run it again); 1 of 2 succeeded for generation 4, storage version v1',
    );
  });
});

describe('parseRecordRef', () => {
  it('reads NAMESPACE/NAME', () => {
    expect(parseRecordRef('crdgate-system/crdgate-migration')).toEqual({
      namespace: 'crdgate-system',
      name: 'crdgate-migration',
    });
  });
  it.each(['name-only', '/x', 'x/', 'a/b/c', 'Upper/x', 'ns/under_score'])('refuses "%s"', (text) => {
    expect(() => parseRecordRef(text)).toThrow(RecordFormatError);
  });
});

/** The API server's ConfigMap semantics that matter here: resourceVersion guards updates, create fails on an existing name. */
function fakeConfigMaps({ exists = true, forbidCreate = false } = {}) {
  interface ConfigMap {
    metadata: { name: string; namespace: string; resourceVersion: string };
    data?: Record<string, string>;
  }
  let stored: ConfigMap | undefined = exists
    ? { metadata: { name: 'mig', namespace: 'ops', resourceVersion: '1' } }
    : undefined;
  const requests: string[] = [];
  const error = (code: number) =>
    new KubeApiError(code, { message: `HTTP ${code}`, details: { name: 'mig' } }, {}, 'fake');
  /** Runs before a request is answered: another shard's write can land between our read and our write. */
  const before: Array<(method: string) => Promise<void> | void> = [];
  const api: Pick<KubeApi, 'request'> = {
    async request(method, path, options = {}): Promise<KubeResponse> {
      requests.push(`${method} ${path}`);
      for (const hook of before) await hook(method);
      await new Promise((resolve) => setImmediate(resolve));
      if (method === 'GET') {
        if (!stored) throw error(404);
        return { status: 200, body: structuredClone(stored) };
      }
      if (method === 'POST') {
        if (forbidCreate) throw error(403);
        if (stored) throw error(409);
        stored = { ...(options.body as ConfigMap), metadata: { name: 'mig', namespace: 'ops', resourceVersion: '1' } };
        return { status: 201, body: structuredClone(stored) };
      }
      const body = options.body as ConfigMap;
      if (!stored || body.metadata.resourceVersion !== stored.metadata.resourceVersion) throw error(409);
      stored = {
        ...body,
        metadata: { ...body.metadata, resourceVersion: String(Number(stored.metadata.resourceVersion) + 1) },
      };
      return { status: 200, body: structuredClone(stored) };
    },
  };
  return { api, requests, before, stored: () => stored };
}

const send: Send = (operation, call) =>
  withRetries(() => call(new AbortController().signal), {
    operation,
    policy: { retries: 3, baseDelayMs: 0, maxDelayMs: 0, random: () => 0 },
    sleep: async () => {},
  });
const ref = { namespace: 'ops', name: 'mig' };
const shardResult = (objects: number): ShardResult => ({
  generation: 4,
  storageVersion: 'v1',
  result: 'succeeded',
  objects,
  finishedAt: '2025-01-01T00:00:00Z',
});

describe('recordShardResult', () => {
  it("writes its own key, keeps the other shards' keys, and returns the data as its write left it", async () => {
    const fake = fakeConfigMaps();
    await recordShardResult(fake.api, send, ref, { index: 0, count: 2 }, shardResult(1));
    const second = await recordShardResult(fake.api, send, ref, { index: 1, count: 2 }, shardResult(2));
    expect(second).toEqual({
      ok: true,
      data: { 'shard-0-of-2': JSON.stringify(shardResult(1)), 'shard-1-of-2': JSON.stringify(shardResult(2)) },
    });
    // A rerun of index 0 overwrites its key.
    await recordShardResult(fake.api, send, ref, { index: 0, count: 2 }, { ...shardResult(7), result: 'failed' });
    expect(JSON.parse(fake.stored()!.data!['shard-0-of-2']!)).toMatchObject({ objects: 7, result: 'failed' });
  });

  it('loses no key when shards write at once, and the last of them sees every key', async () => {
    const fake = fakeConfigMaps();
    const results = await Promise.all(
      [0, 1, 2, 3].map((index) => recordShardResult(fake.api, send, ref, { index, count: 4 }, shardResult(index))),
    );
    expect(Object.keys(fake.stored()!.data!).sort()).toEqual(
      [0, 1, 2, 3].map((index) => shardKey({ index, count: 4 })),
    );
    const seenByEach = results.map((recorded) => (recorded.ok ? Object.keys(recorded.data).length : 0));
    expect(seenByEach).toContain(4);
    expect(fake.requests.filter((line) => line.startsWith('PUT')).length).toBeGreaterThan(4);
  });

  it('creates the ConfigMap when it is absent; a shard that loses the race to create it updates it instead', async () => {
    const fake = fakeConfigMaps({ exists: false });
    const results = await Promise.all(
      [0, 1].map((index) => recordShardResult(fake.api, send, ref, { index, count: 2 }, shardResult(index))),
    );
    expect(results.every((recorded) => recorded.ok)).toBe(true);
    expect(Object.keys(fake.stored()!.data!).sort()).toEqual(['shard-0-of-2', 'shard-1-of-2']);
    expect(fake.requests.filter((line) => line.startsWith('POST'))).toHaveLength(2);
  });

  it('says what it could not do when it may not create the ConfigMap', async () => {
    const fake = fakeConfigMaps({ exists: false, forbidCreate: true });
    const recorded = await recordShardResult(fake.api, send, ref, { index: 0, count: 2 }, shardResult(1));
    expect(recorded).toMatchObject({
      ok: false,
      what: 'create the ConfigMap ops/mig',
      failure: { class: 'stop', cause: 'forbidden' },
    });
  });
});
