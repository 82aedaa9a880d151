import { describe, expect, it } from 'vitest';
import { KubeApiError, KubeTransportError, type KubeApi, type KubeResponse } from '../kube/kube-api.ts';
import { migrationAnswer, renderSummary } from './migration-report.ts';
import { createRateLimiter } from './rate-limiter.ts';
import { realSleep } from './retry-policy.ts';
import { MigrationConfigError, MigrationInterruptedError } from './migration-start.ts';
import { runMigration, type MigrationOptions } from './run-migration.ts';
import type { ProgressSnapshot } from './progress-display.ts';
import { StopRequested } from '../abort/stop-signal.ts';
import { shardOf } from './shard.ts';
import { NOT_A_DRY_RUN, type StorageRulesJudge } from './storage-rules.ts';

/**
 * A fake API server for the run's error and retry policy only (the real one is in the e2e suite): objects with
 * resourceVersions, a CRD, the shards' ConfigMap, and a script of failures to inject per request.
 */
function fakeApi(objectCount: number, { storedVersions = ['v1beta1', 'v1'], statusSubresource = true } = {}) {
  const objects = new Map<string, { metadata: Record<string, unknown>; spec: unknown }>();
  for (let i = 0; i < objectCount; i++) {
    const name = `db-${String(i).padStart(3, '0')}`;
    objects.set(name, { metadata: { name, namespace: 'maps', uid: `uid-${i}`, resourceVersion: '1' }, spec: { i } });
  }
  const crd = {
    metadata: { name: 'geodatabases.geo.example.com', generation: 2, resourceVersion: '10' },
    spec: {
      group: 'geo.example.com',
      scope: 'Namespaced',
      names: { plural: 'geodatabases' },
      versions: [
        { name: 'v1beta1', served: true },
        { name: 'v1', served: true, storage: true, ...(statusSubresource ? { subresources: { status: {} } } : {}) },
      ],
    },
    status: { storedVersions },
  };
  /** The shards' record: absent until a shard creates it. */
  const record: {
    configMap?: {
      metadata: { name: string; namespace: string; resourceVersion: string };
      data?: Record<string, string>;
    };
  } = {};
  const requests: string[] = [];
  /** Per request line (e.g. "PUT db-001"): errors to throw, in order, before answering normally. */
  const failures = new Map<string, Error[]>();
  const onRequest: Array<(line: string) => void> = [];
  /** Request lines that never get an answer (an API server that froze), until the request's signal is aborted. */
  const hang = new Set<string>();
  const error = (code: number, message = `HTTP ${code}`, extra: object = {}) =>
    new KubeApiError(code, { message, ...extra }, {}, 'fake');
  /** A 404 or 409 about one object, named in the Status's details as the API server does. */
  const about = (code: number, name: string) =>
    error(code, `geodatabases "${name}" not found`, { details: { name, kind: 'geodatabases' } });

  const api: KubeApi = {
    server: 'https://fake',
    async request(method, path, options = {}): Promise<KubeResponse> {
      const subresource = path.endsWith('/status') ? '/status' : '';
      const name = path.split('/').at(subresource ? -2 : -1)!;
      const line = path.includes('customresourcedefinitions')
        ? `${method} crd${subresource}`
        : path.includes('/configmaps')
          ? `${method} record`
          : path.endsWith('/geodatabases')
            ? `LIST ${options.query?.['continue'] ?? ''}`
            : `${method} ${name}${subresource}`;
      requests.push(line);
      for (const hook of onRequest) hook(line);
      const injected = failures.get(line)?.shift();
      if (injected) throw injected;
      if (hang.has(line)) {
        return new Promise((_resolve, reject) => {
          if (options.signal?.aborted) reject(new StopRequested(line));
          options.signal?.addEventListener('abort', () => reject(new StopRequested(line)));
        });
      }
      if (line === 'GET crd') return { status: 200, body: structuredClone(crd) };
      if (line.endsWith(' record')) {
        const named = { details: { name: 'mig', kind: 'configmaps' } };
        if (method === 'GET') {
          if (!record.configMap) throw error(404, 'configmaps "mig" not found', named);
          return { status: 200, body: structuredClone(record.configMap) };
        }
        const body = structuredClone(options.body) as NonNullable<typeof record.configMap>;
        if (method === 'POST') {
          if (record.configMap) throw error(409, 'configmaps "mig" already exists', named);
          record.configMap = { ...body, metadata: { ...body.metadata, resourceVersion: '1' } };
        } else {
          if (body.metadata.resourceVersion !== record.configMap?.metadata.resourceVersion)
            throw error(409, 'the object has been modified', named);
          record.configMap = {
            ...body,
            metadata: { ...body.metadata, resourceVersion: String(Number(body.metadata.resourceVersion) + 1) },
          };
        }
        return { status: 200, body: structuredClone(record.configMap) };
      }
      if (line === 'PUT crd/status') {
        const body = options.body as typeof crd;
        if (body.metadata.resourceVersion !== crd.metadata.resourceVersion)
          throw error(409, 'the object has been modified');
        crd.status = body.status;
        crd.metadata.resourceVersion = String(Number(crd.metadata.resourceVersion) + 1);
        return { status: 200, body: structuredClone(crd) };
      }
      if (line.startsWith('LIST')) {
        const selected = options.query?.['fieldSelector']?.replace('metadata.name=', '');
        const names = [...objects.keys()].sort().filter((n) => selected === undefined || n === selected);
        const start = Number(options.query?.['continue'] ?? 0);
        const limit = Number(options.query?.['limit'] ?? names.length);
        const page = names.slice(start, start + limit);
        const next = start + limit < names.length ? String(start + limit) : undefined;
        return {
          status: 200,
          body: {
            items: page.map((n) => structuredClone(objects.get(n))),
            metadata: { ...(next ? { continue: next, remainingItemCount: names.length - start - limit } : {}) },
          },
        };
      }
      const stored = objects.get(name);
      if (!stored) throw about(404, name);
      if (method === 'GET') return { status: 200, body: structuredClone(stored) };
      const body = options.body as typeof stored;
      if (body.metadata['resourceVersion'] !== stored.metadata['resourceVersion'])
        throw error(409, 'the object has been modified');
      if (options.query?.['dryRun'] !== 'All') {
        Object.assign(stored, structuredClone(body));
        stored.metadata['resourceVersion'] = String(Number(body.metadata['resourceVersion']) + 1);
      }
      return { status: 200, body: structuredClone(stored) };
    },
  };
  return { api, objects, crd, record, requests, failures, onRequest, hang, error, about };
}

function options(overrides: Partial<MigrationOptions> = {}): MigrationOptions {
  return {
    resource: 'geodatabases.geo.example.com',
    dryRun: false,
    concurrency: 3,
    chunkSize: 4,
    retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 },
    limiter: createRateLimiter({ qps: 1e9, burst: 1e9 }),
    sleep: async () => {},
    stop: new AbortController().signal,
    ...overrides,
  };
}

describe('runMigration against a fake API server (error and retry policy)', () => {
  it('rewrites every object over several chunks and trims storedVersions', async () => {
    const fake = fakeApi(10);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({
      outcome: 'migrated',
      objects: { seen: 10, rewritten: 10, current: 0, gone: 0, failed: 0 },
      storedVersions: { before: ['v1beta1', 'v1'], after: ['v1'] },
    });
    expect(fake.crd.status.storedVersions).toEqual(['v1']);
    expect(fake.requests.filter((r) => r.startsWith('LIST'))).toEqual(['LIST ', 'LIST 4', 'LIST 8']);
    expect(migrationAnswer(report)).toBe('DONE');
  });

  it('counts 404 as gone and 409 as already current, and still trims', async () => {
    const fake = fakeApi(5);
    fake.failures.set('PUT db-001', [fake.about(404, 'db-001')]);
    fake.failures.set('PUT db-002', [fake.about(409, 'db-002')]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({
      outcome: 'migrated',
      objects: { seen: 5, rewritten: 3, current: 1, gone: 1, failed: 0 },
    });
  });

  it('never counts an object as gone on a 404 that names no object (the resource is not served yet): it retries', async () => {
    const fake = fakeApi(2);
    const notServed = fake.error(404, 'the server could not find the requested resource');
    fake.failures.set('PUT db-001', [notServed]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'migrated', objects: { rewritten: 2, gone: 0 } });
    fake.failures.set('PUT db-000', [notServed, notServed, notServed]);
    fake.crd.status.storedVersions = ['v1beta1', 'v1'];
    const stuck = await runMigration(fake.api, options());
    expect(stuck).toMatchObject({ outcome: 'aborted', objects: { gone: 0 } });
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
  });

  it('records a refused object with the API server message, migrates the rest and leaves storedVersions alone', async () => {
    const fake = fakeApi(6);
    fake.failures.set('PUT db-003', [fake.error(422, 'admission webhook "x" denied the request: no')]);
    fake.failures.set('PUT db-004', [fake.error(403, 'forbidden by policy')]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'failed', objects: { rewritten: 4, failed: 2 } });
    expect(report.failures).toEqual([
      { namespace: 'maps', name: 'db-003', code: 422, message: 'admission webhook "x" denied the request: no' },
      { namespace: 'maps', name: 'db-004', code: 403, message: 'forbidden by policy' },
    ]);
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
    expect(fake.requests).not.toContain('PUT crd/status');
    expect(migrationAnswer(report)).toBe('NO');
    expect(renderSummary(report)).toContain('maps/db-003: HTTP 422: admission webhook "x" denied the request: no');
  });

  it('retries 429, 5xx and resets, then succeeds', async () => {
    const fake = fakeApi(3);
    fake.failures.set('PUT db-000', [fake.error(429), new KubeTransportError('ECONNRESET')]);
    fake.failures.set('LIST ', [fake.error(503)]);
    fake.failures.set('PUT crd/status', [fake.error(500)]);
    const retried: string[] = [];
    const report = await runMigration(fake.api, options({ onRetry: (what) => retried.push(what) }));
    expect(report).toMatchObject({ outcome: 'migrated', objects: { rewritten: 3 } });
    expect(retried).toEqual([
      'list geodatabases.geo.example.com',
      'rewrite maps/db-000',
      'rewrite maps/db-000',
      'update the CRD status',
    ]);
  });

  it('stops taking objects once retries run out, and says so (no object counted as failed)', async () => {
    const fake = fakeApi(12);
    fake.failures.set('PUT db-005', [fake.error(503), fake.error(503), fake.error(503, 'etcd is down')]);
    const report = await runMigration(fake.api, options({ concurrency: 1 }));
    expect(report.outcome).toBe('aborted');
    expect(report.problem).toContain('maps/db-005: HTTP 503');
    expect(report.problem).toContain('etcd is down');
    expect(report.objects).toMatchObject({ seen: 5, failed: 0 });
    expect(fake.requests).not.toContain('PUT db-006');
    expect(migrationAnswer(report)).toBe('NO');
  });

  it('carries on from the token a 410 Expired offers', async () => {
    const fake = fakeApi(8);
    fake.failures.set('LIST 4', [fake.error(410, 'the continue token expired', { metadata: { continue: '4' } })]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'migrated', objects: { seen: 8, rewritten: 8 } });
  });

  it('carries on through a 410 at every page of a long list (etcd compacts every few minutes), and stops only when 410s bring no progress', async () => {
    const long = fakeApi(40);
    for (let token = 4; token < 40; token += 4)
      long.failures.set(`LIST ${token}`, [long.error(410, 'compacted', { metadata: { continue: String(token) } })]);
    expect(await runMigration(long.api, options())).toMatchObject({
      outcome: 'migrated',
      objects: { seen: 40, rewritten: 40 },
    });

    const stuck = fakeApi(8);
    stuck.failures.set(
      'LIST 4',
      Array.from({ length: 6 }, () => stuck.error(410, 'compacted', { metadata: { continue: '4' } })),
    );
    const report = await runMigration(stuck.api, options());
    expect(report.outcome).toBe('aborted');
    expect(report.problem).toContain('compacted');
  });

  it('lists again from the start after a 410 without a token, without writing or counting objects twice', async () => {
    const fake = fakeApi(8);
    fake.failures.set('LIST 4', [fake.error(410, 'expired')]);
    // Meanwhile someone creates an object that sorts into the first page: created in the storage version, it needs no write.
    fake.onRequest.push((line) => {
      if (line === 'LIST 4' && !fake.objects.has('db-000a'))
        fake.objects.set('db-000a', {
          metadata: { name: 'db-000a', namespace: 'maps', uid: 'uid-new', resourceVersion: '1' },
          spec: {},
        });
    });
    const snapshots: ProgressSnapshot[] = [];
    const report = await runMigration(fake.api, options({ onProgress: (snapshot) => snapshots.push(snapshot) }));
    expect(report).toMatchObject({ outcome: 'migrated', objects: { seen: 8, rewritten: 8 } });
    expect(fake.requests.filter((r) => r.startsWith('LIST'))).toEqual(['LIST ', 'LIST 4', 'LIST ', 'LIST 4', 'LIST 8']);
    const writes = fake.requests.filter((r) => r.startsWith('PUT db-'));
    expect(writes).toEqual([...new Set(writes)]);
    expect(writes).not.toContain('PUT db-000a');
    // The progress total is the collection's size, never the first pass and the relist added up.
    expect(Math.max(...snapshots.map((snapshot) => snapshot.total ?? 0))).toBe(9);
    // The new object is counted in the estimate but never gone through: the last snapshot stays one short.
    expect(snapshots.at(-1)).toMatchObject({ done: 8, total: 9 });
  });

  it('re-reads the CRD on a status conflict, and never trims when the CRD changed during the run', async () => {
    const fake = fakeApi(2);
    let bumped = false;
    fake.onRequest.push((line) => {
      if (line === 'PUT crd/status' && !bumped) {
        bumped = true;
        fake.crd.metadata.resourceVersion = '11'; // a status write by someone else
      }
    });
    expect((await runMigration(fake.api, options())).outcome).toBe('migrated');

    const changed = fakeApi(2);
    changed.onRequest.push((line) => {
      if (line === 'PUT db-001') changed.crd.metadata.generation = 3;
    });
    const report = await runMigration(changed.api, options());
    expect(report.outcome).toBe('crd-changed');
    expect(report.problem).toContain('generation 2 -> 3');
    expect(changed.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
  });

  it('finishes the writes in flight when asked to stop, then reports interrupted', async () => {
    const fake = fakeApi(20);
    const stop = new AbortController();
    fake.onRequest.push((line) => {
      if (line === 'PUT db-004') stop.abort();
    });
    const report = await runMigration(fake.api, options({ stop: stop.signal, concurrency: 2 }));
    expect(report.outcome).toBe('interrupted');
    expect(report.objects.seen).toBeGreaterThanOrEqual(5);
    expect(report.objects.seen).toBeLessThan(8);
    expect(report.objects.rewritten).toBe(report.objects.seen);
    expect(fake.requests).not.toContain('PUT crd/status');
    expect(migrationAnswer(report)).toBe('MIGRATION_INTERRUPTED');
  });

  it('mends managedFields of a version no longer served, re-reading an object that changed meanwhile', async () => {
    const fake = fakeApi(3, { storedVersions: ['v1'] });
    const stale = [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'geo.example.com/v1alpha1',
        fieldsType: 'FieldsV1',
        fieldsV1: {},
      },
    ];
    fake.objects.get('db-001')!.metadata['managedFields'] = stale;
    fake.failures.set('PUT db-001', [fake.about(409, 'db-001')]);
    let written = false;
    fake.onRequest.push((line) => {
      // Another writer's update lands between our list and our write; it keeps the stale entry.
      if (line === 'PUT db-001' && !written) fake.objects.get('db-001')!.metadata['resourceVersion'] = '7';
      written ||= line === 'PUT db-001';
    });
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'mended', managedFields: { objectsMended: 1, entriesDropped: 1 } });
    expect(fake.requests.filter((r) => r.includes('db-001') || r === 'LIST ').length).toBeGreaterThanOrEqual(3);
    expect(fake.objects.get('db-001')!.metadata['managedFields']).toEqual([
      expect.objectContaining({ apiVersion: 'geo.example.com/v1', fieldsV1: { 'f:metadata': { 'f:name': {} } } }),
    ]);
    expect(fake.requests.filter((r) => r === 'PUT db-000' || r === 'PUT db-002')).toEqual([]);
  });

  it('writes nothing when storedVersions is already trimmed and no managedFields need mending', async () => {
    const fake = fakeApi(5, { storedVersions: ['v1'] });
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'nothing-to-do', objects: { seen: 5, current: 5 } });
    expect(fake.requests.filter((r) => r.startsWith('PUT'))).toEqual([]);
  });

  it('sends every write as a dry run with --dry-run and leaves storedVersions alone', async () => {
    const fake = fakeApi(3);
    const report = await runMigration(fake.api, options({ dryRun: true }));
    expect(report).toMatchObject({ outcome: 'dry-run', objects: { rewritten: 3 } });
    expect([...fake.objects.values()].map((o) => o.metadata['resourceVersion'])).toEqual(['1', '1', '1']);
    expect(fake.requests).not.toContain('PUT crd/status');
  });

  it('says a dry run cannot tell which objects are already current, instead of calling them all rewritten', async () => {
    const dryRun = renderSummary(await runMigration(fakeApi(3).api, options({ dryRun: true })));
    expect(dryRun).toContain('3 would be written (a dry run cannot tell which are already stored in v1');
    expect(dryRun).not.toMatch(/rewritten|already current/);
    const real = renderSummary(await runMigration(fakeApi(3).api, options()));
    expect(real).toContain('3 rewritten, 0 already current');
  });

  it('turns a missing CRD and an unreachable API server into configuration errors', async () => {
    const missing = fakeApi(0);
    missing.failures.set('GET crd', [missing.about(404, 'geodatabases.geo.example.com')]);
    await expect(runMigration(missing.api, options())).rejects.toThrow(MigrationConfigError);
    const unreachable = fakeApi(0);
    unreachable.failures.set(
      'GET crd',
      [1, 2, 3].map(() => new KubeTransportError('connect ECONNREFUSED 127.0.0.1:6443')),
    );
    await expect(runMigration(unreachable.api, options())).rejects.toThrow(
      /cannot reach the API server at https:\/\/fake: connect ECONNREFUSED/,
    );
  });
});

describe('runMigration: every error classified once, the report naming the real cause', () => {
  it.each([
    ['401 on the list', 'LIST ', 401, 'unauthorized'],
    ['403 on the list', 'LIST ', 403, 'forbidden'],
    ['401 on an object write', 'PUT db-001', 401, 'unauthorized'],
    ['403 on the status write', 'PUT crd/status', 403, 'forbidden'],
    ['422 on the status write', 'PUT crd/status', 422, 'rejected'],
  ])('%s stops the run as %s, storedVersions untouched', async (_case, line, code, cause) => {
    const fake = fakeApi(3);
    fake.failures.set(line, [fake.error(code, 'not for you')]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'aborted', cause, objects: { failed: 0 } });
    expect(report.problem).toContain('not for you');
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
    expect(migrationAnswer(report)).toBe('NO');
  });

  it('calls retries that ran out "unavailable", with the last error', async () => {
    const fake = fakeApi(3);
    fake.failures.set('LIST ', [fake.error(503), fake.error(503), fake.error(503, 'etcd is down')]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'aborted', cause: 'unavailable' });
    expect(report.problem).toContain('etcd is down');
  });

  it('lets a bug crash the run instead of reporting it as an API failure, on a list as on a write', async () => {
    const onList = fakeApi(3);
    onList.failures.set('LIST ', [new TypeError('items is not iterable')]);
    await expect(runMigration(onList.api, options())).rejects.toThrow(TypeError);
    const onWrite = fakeApi(8);
    onWrite.failures.set('PUT db-001', [new TypeError('boom')]);
    await expect(runMigration(onWrite.api, options({ concurrency: 2 }))).rejects.toThrow(TypeError);
    // The other workers stopped taking objects: nothing past the chunk the crash was in was written.
    expect(onWrite.requests.filter((line) => line.startsWith('PUT db-00') && Number(line.slice(-1)) >= 4)).toEqual([]);
    expect(onWrite.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
  });
});

describe('runMigration: a stop request ends every wait at once', () => {
  const slowRetries = { retries: 6, baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0 };

  it('during a backoff: interrupted, not aborted, within a second', async () => {
    const fake = fakeApi(10);
    fake.failures.set(
      'PUT db-005',
      Array.from({ length: 7 }, () => new KubeTransportError('connect ECONNREFUSED')),
    );
    const stop = new AbortController();
    const startedAt = performance.now();
    const report = await runMigration(
      fake.api,
      options({
        concurrency: 1,
        retry: slowRetries,
        sleep: realSleep,
        stop: stop.signal,
        onRetry: () => setTimeout(() => stop.abort(), 20),
      }),
    );
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(report).toMatchObject({ outcome: 'interrupted', objects: { seen: 5 } });
    expect(fake.requests).not.toContain('PUT crd/status');
    expect(migrationAnswer(report)).toBe('MIGRATION_INTERRUPTED');
  });

  it("in the rate limiter's wait", async () => {
    const fake = fakeApi(10);
    const stop = new AbortController();
    const startedAt = performance.now();
    setTimeout(() => stop.abort(), 50);
    // Three requests at once (the CRD, a list, a write), then one every 100 s: the run is waiting for a token when the signal comes.
    const report = await runMigration(
      fake.api,
      options({ concurrency: 1, limiter: createRateLimiter({ qps: 0.01, burst: 3 }), stop: stop.signal }),
    );
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(report).toMatchObject({ outcome: 'interrupted', objects: { seen: 1 } });
  });

  it('a request in flight gets the grace, then is abandoned', async () => {
    const fake = fakeApi(10);
    fake.hang.add('PUT db-002');
    const stop = new AbortController();
    fake.onRequest.push((line) => {
      if (line === 'PUT db-002') setTimeout(() => stop.abort(), 10);
    });
    const startedAt = performance.now();
    const report = await runMigration(fake.api, options({ concurrency: 1, stop: stop.signal, inFlightGraceMs: 100 }));
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(100);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(report).toMatchObject({ outcome: 'interrupted', objects: { seen: 2 } });
  });

  it('before the CRD is read: an interruption, not a configuration error', async () => {
    const fake = fakeApi(1);
    fake.failures.set('GET crd', [new KubeTransportError('connect ECONNREFUSED')]);
    const stop = new AbortController();
    const run = runMigration(
      fake.api,
      options({ retry: slowRetries, sleep: realSleep, stop: stop.signal, onRetry: () => stop.abort() }),
    );
    await expect(run).rejects.toBeInstanceOf(MigrationInterruptedError);
  });
});

describe('runMigration with --shard and --record', () => {
  const record = { namespace: 'ops', name: 'mig' };
  const shardOptions = (index: number, count: number, overrides: Partial<MigrationOptions> = {}) =>
    options({ shard: { index, count }, record, ...overrides });
  const writtenObjects = (requests: string[]) =>
    requests.filter((line) => /^PUT db-\d+$/.test(line)).map((line) => line.slice(4));
  const ownObjects = (count: number, index: number, total: number) =>
    Array.from({ length: total }, (_, i) => `db-${String(i).padStart(3, '0')}`).filter(
      (name) => shardOf({ namespace: 'maps', name }, count) === index,
    );

  it('writes only its own objects; storedVersions waits for every shard, and the last one trims it', async () => {
    const fake = fakeApi(40);
    const reports = [];
    for (const index of [2, 0, 3]) {
      const before = fake.requests.length;
      const report = await runMigration(fake.api, shardOptions(index, 4));
      reports.push(report);
      expect(writtenObjects(fake.requests.slice(before))).toEqual(ownObjects(4, index, 40));
      expect(report).toMatchObject({
        outcome: 'shard-done',
        objects: { seen: ownObjects(4, index, 40).length },
        shard: { index, count: 4, record: 'ops/mig', listed: 40, recorded: 'succeeded' },
      });
      expect(migrationAnswer(report)).toBe('DONE');
      expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
    }
    expect(reports.at(-1)!.shard!.shards).toEqual({
      complete: false,
      succeeded: [0, 2, 3],
      failed: [],
      missing: [1],
      stale: [],
    });
    expect(reports.at(-1)!.storedVersions.why).toBe(
      'not trimmed: waiting for shard 1; 3 of 4 succeeded for generation 2, storage version v1',
    );
    const summary = renderSummary(reports.at(-1)!);
    expect(summary).toMatch(
      /^shard 3\/4 done: its objects are stored in v1; storedVersions left as it was until every shard has succeeded\n/,
    );
    expect(summary).toContain(
      `  shard             3/4 by namespace/name hash: ${ownObjects(4, 3, 40).length} of the 40 objects listed are its own; recorded "succeeded" in the ConfigMap ops/mig\n`,
    );
    expect(summary).toContain(
      '  storedVersions    [v1beta1, v1] (unchanged): not trimmed: waiting for shard 1; 3 of 4 succeeded',
    );

    const last = await runMigration(fake.api, shardOptions(1, 4));
    expect(last).toMatchObject({ outcome: 'migrated', storedVersions: { before: ['v1beta1', 'v1'], after: ['v1'] } });
    expect(last.storedVersions.why).toBe('trimmed: every shard (4) succeeded for generation 2, storage version v1');
    expect(fake.crd.status.storedVersions).toEqual(['v1']);
    // Every object written exactly once over the four shards.
    expect(writtenObjects(fake.requests).sort()).toEqual([...fake.objects.keys()].sort());
    expect(JSON.parse(fake.record.configMap!.data!['shard-1-of-4']!)).toEqual({
      generation: 2,
      storageVersion: 'v1',
      result: 'succeeded',
      objects: ownObjects(4, 1, 40).length,
      finishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  it('trims once every shard is in, however they interleave when they run at once', async () => {
    const fake = fakeApi(60);
    const reports = await Promise.all(
      [0, 1, 2, 3].map((index) => runMigration(fake.api, shardOptions(index, 4, { concurrency: 2 }))),
    );
    expect(reports.map((report) => migrationAnswer(report))).toEqual(['DONE', 'DONE', 'DONE', 'DONE']);
    expect(reports.filter((report) => report.outcome === 'migrated').length).toBeGreaterThanOrEqual(1);
    expect(fake.crd.status.storedVersions).toEqual(['v1']);
    expect(writtenObjects(fake.requests).sort()).toEqual([...fake.objects.keys()].sort());
  });

  it('a failed shard records "failed" and holds the trim back until its index is rerun', async () => {
    const fake = fakeApi(20);
    const refused = ownObjects(2, 0, 20)[1]!;
    fake.failures.set(`PUT ${refused}`, [fake.error(422, 'denied by a webhook')]);
    const failed = await runMigration(fake.api, shardOptions(0, 2));
    expect(failed).toMatchObject({
      outcome: 'failed',
      shard: { recorded: 'failed' },
      failures: [{ name: refused, code: 422 }],
    });
    expect(failed.storedVersions.why).toBe('not trimmed: 1 object(s) were refused (this shard recorded "failed")');
    expect(migrationAnswer(failed)).toBe('NO');

    const other = await runMigration(fake.api, shardOptions(1, 2));
    expect(other).toMatchObject({ outcome: 'shard-done', shard: { shards: { succeeded: [1], failed: [0] } } });
    expect(other.storedVersions.why).toBe(
      'not trimmed: shard 0 failed (run it again); 1 of 2 succeeded for generation 2, storage version v1',
    );
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);

    const rerun = await runMigration(fake.api, shardOptions(0, 2));
    expect(rerun.outcome).toBe('migrated');
    expect(fake.crd.status.storedVersions).toEqual(['v1']);
  });

  it('a result recorded for another CRD generation does not count', async () => {
    const fake = fakeApi(20);
    expect((await runMigration(fake.api, shardOptions(0, 2))).outcome).toBe('shard-done');
    fake.crd.metadata.generation = 3; // the CRD changed after shard 0 finished
    const second = await runMigration(fake.api, shardOptions(1, 2));
    expect(second).toMatchObject({
      outcome: 'shard-done',
      generation: 3,
      shard: { shards: { succeeded: [1], stale: [0] } },
    });
    expect(second.storedVersions.why).toContain(
      'shard 0 recorded a result for another CRD generation or storage version (run it again)',
    );
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
    expect((await runMigration(fake.api, shardOptions(0, 2))).outcome).toBe('migrated');
  });

  it('records nothing when stopped or in a dry run; a key an earlier run wrote stays as it was', async () => {
    const fake = fakeApi(20);
    const dryRun = await runMigration(fake.api, shardOptions(0, 2, { dryRun: true }));
    expect(dryRun).toMatchObject({ outcome: 'dry-run', shard: { listed: 20 } });
    expect(dryRun.shard).not.toHaveProperty('recorded');
    expect(fake.record.configMap).toBeUndefined();

    const stop = new AbortController();
    const second = ownObjects(2, 1, 20)[1]!;
    fake.onRequest.push((line) => line === `PUT ${second}` && stop.abort());
    const stopped = await runMigration(fake.api, shardOptions(1, 2, { stop: stop.signal, concurrency: 1 }));
    expect(stopped.outcome).toBe('interrupted');
    expect(fake.requests.filter((line) => line.endsWith(' record'))).toEqual([]);
    expect(renderSummary(stopped)).toContain('nothing recorded in the ConfigMap ops/mig');
  });

  it('says what the run may not do when it cannot write the record', async () => {
    const fake = fakeApi(4);
    fake.failures.set('GET record', [
      fake.error(403, 'configmaps "mig" is forbidden: User cannot get resource "configmaps"'),
    ]);
    const report = await runMigration(fake.api, shardOptions(0, 2));
    expect(report).toMatchObject({ outcome: 'aborted', cause: 'forbidden' });
    expect(report.problem).toContain('may not read the ConfigMap ops/mig');
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
  });

  it('refuses more than one shard without a record: no shard could ever know when to trim', async () => {
    await expect(runMigration(fakeApi(1).api, options({ shard: { index: 0, count: 2 } }))).rejects.toThrow(
      MigrationConfigError,
    );
  });

  it('with one shard and a record, records and trims as a whole run does', async () => {
    const fake = fakeApi(5);
    const report = await runMigration(fake.api, shardOptions(0, 1));
    expect(report).toMatchObject({ outcome: 'migrated', shard: { recorded: 'succeeded', shards: { complete: true } } });
    expect(fake.crd.status.storedVersions).toEqual(['v1']);
  });
});

describe('runMigration --via status', () => {
  it('writes every object through its status subresource', async () => {
    const fake = fakeApi(6);
    const report = await runMigration(fake.api, options({ via: 'status' }));
    expect(report).toMatchObject({ outcome: 'migrated', via: 'status', objects: { rewritten: 6 } });
    const writes = fake.requests.filter((line) => line.startsWith('PUT db-'));
    expect(writes).toHaveLength(6);
    expect(writes.every((line) => line.endsWith('/status'))).toBe(true);
    expect(renderSummary(report)).toContain('0 failed (written through the status subresource)');
  });

  it('does not write an object whose managedFields need mending: through status the API server would clear them all', async () => {
    const fake = fakeApi(3);
    const entries = [
      {
        manager: 'gitops',
        operation: 'Apply',
        apiVersion: 'geo.example.com/v1alpha1',
        fieldsType: 'FieldsV1',
        fieldsV1: {},
      },
      {
        manager: 'kubectl',
        operation: 'Update',
        apiVersion: 'geo.example.com/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {},
      },
    ];
    fake.objects.get('db-001')!.metadata['managedFields'] = entries;
    const report = await runMigration(fake.api, options({ via: 'status' }));
    expect(report).toMatchObject({
      outcome: 'failed',
      objects: { rewritten: 2, failed: 1 },
      managedFields: { objectsMended: 0 },
    });
    expect(report.failures).toEqual([
      {
        namespace: 'maps',
        name: 'db-001',
        code: 0,
        message: expect.stringContaining('its managedFields name geo.example.com/v1alpha1, no longer served'),
      },
    ]);
    expect(fake.requests).not.toContain('PUT db-001/status');
    expect(fake.objects.get('db-001')!.metadata['managedFields']).toEqual(entries);
    expect(renderSummary(report)).toContain(
      '    maps/db-001: not written: its managedFields name geo.example.com/v1alpha1, no longer served; through the status subresource',
    );
    expect(fake.crd.status.storedVersions).toEqual(['v1beta1', 'v1']);
  });

  it('is a configuration error when the storage version has no status subresource', async () => {
    const fake = fakeApi(3, { statusSubresource: false });
    await expect(runMigration(fake.api, options({ via: 'status' }))).rejects.toThrow(
      '--via status: the CRD geodatabases.geo.example.com has no status subresource in its storage version v1',
    );
    expect(fake.requests.filter((line) => line.startsWith('PUT'))).toEqual([]);
  });
});

describe('runMigration: refused objects', () => {
  it('lists the first 1,000 and counts them all, so a webhook that refuses everything cannot fill the memory', async () => {
    const fake = fakeApi(1_003);
    for (const name of fake.objects.keys()) fake.failures.set(`PUT ${name}`, [fake.error(403, 'no updates')]);
    const report = await runMigration(fake.api, options({ chunkSize: 500, concurrency: 8 }));
    expect(report).toMatchObject({ outcome: 'failed', objects: { failed: 1_003 } });
    expect(report.failures).toHaveLength(1_000);
    const summary = renderSummary(report);
    expect(summary).toContain('  failed objects (1003, the first 1000 listed):');
    expect(summary).toMatch(/ {4}\.\.\. and 3 more\n$/);
  });
});

describe('runMigration --dry-run: each object judged against the storage version rules', () => {
  /** A stand-in for the engine: an object breaks the rules when its spec.i is a multiple of 3. */
  const everyThird =
    (judged: string[], given: unknown[]): StorageRulesJudge =>
    (crd) => {
      given.push(crd);
      return {
        judge: (object) => {
          const { metadata, spec } = object as { metadata: { name: string }; spec: { i: number } };
          judged.push(metadata.name);
          return spec.i % 3 === 0 ? [{ field: 'spec.i', message: `Invalid value: ${spec.i}: a multiple of 3` }] : [];
        },
      };
    };

  it('judges every object as listed, by the CRD the run read, and lists those that break the rules in list order', async () => {
    const fake = fakeApi(10);
    const judged: string[] = [];
    const given: unknown[] = [];
    const crdAsRead = structuredClone(fake.crd);
    const report = await runMigration(
      fake.api,
      options({ dryRun: true, storageRules: everyThird(judged, given), concurrency: 3, chunkSize: 4 }),
    );
    expect(given).toEqual([crdAsRead]);
    expect(judged).toEqual([...fake.objects.keys()]);
    expect(report.outcome).toBe('dry-run');
    expect(report.storageRules).toEqual({
      checked: true,
      judged: 10,
      breaking: 4,
      objects: [0, 3, 6, 9].map((i) => ({
        namespace: 'maps',
        name: `db-00${i}`,
        causes: [{ field: 'spec.i', message: `Invalid value: ${i}: a multiple of 3` }],
        moreCauses: 0,
      })),
    });
  });

  it('judges nothing in a real run', async () => {
    const judged: string[] = [];
    const given: unknown[] = [];
    const report = await runMigration(fakeApi(3).api, options({ storageRules: everyThird(judged, given) }));
    expect(report.outcome).toBe('migrated');
    expect(given).toEqual([]);
    expect(report.storageRules).toEqual({
      checked: false,
      notChecked: NOT_A_DRY_RUN,
      judged: 0,
      breaking: 0,
      objects: [],
    });
  });

  it('judges only its own objects with --shard', async () => {
    const fake = fakeApi(12);
    const judged: string[] = [];
    const shard = { index: 1, count: 3 };
    await runMigration(
      fake.api,
      options({ dryRun: true, shard, record: { namespace: 'ops', name: 'mig' }, storageRules: everyThird(judged, []) }),
    );
    const own = [...fake.objects.keys()].filter((name) => shardOf({ namespace: 'maps', name }, 3) === 1);
    expect(own.length).toBeGreaterThan(0);
    expect(judged).toEqual(own);
  });

  it('migrates as ever when the rules cannot be checked, and says why', async () => {
    const fake = fakeApi(3);
    const storageRules: StorageRulesJudge = () => ({ notChecked: "crdgate's API server engine is not there" });
    const report = await runMigration(fake.api, options({ dryRun: true, storageRules }));
    expect(report).toMatchObject({ outcome: 'dry-run', objects: { rewritten: 3, failed: 0 } });
    expect(report.storageRules).toEqual({
      checked: false,
      notChecked: "crdgate's API server engine is not there",
      judged: 0,
      breaking: 0,
      objects: [],
    });
  });

  it('ends the judging, not the run, when the judge fails on an object', async () => {
    const fake = fakeApi(5);
    let calls = 0;
    const storageRules: StorageRulesJudge = () => ({
      judge: () => {
        if (++calls === 3) throw new Error('the API server engine failed on the object and was stopped');
        return [];
      },
    });
    const report = await runMigration(fake.api, options({ dryRun: true, storageRules, concurrency: 1 }));
    expect(report).toMatchObject({ outcome: 'dry-run', objects: { rewritten: 5 } });
    expect(calls).toBe(3);
    expect(report.storageRules).toEqual({
      checked: false,
      notChecked:
        'the judging stopped at maps/db-002, after 2 objects: the API server engine failed on the object and was stopped',
      judged: 2,
      breaking: 0,
      objects: [],
    });
  });
});
