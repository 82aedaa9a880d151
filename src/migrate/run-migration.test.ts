import { describe, expect, it } from 'vitest';
import { KubeApiError, KubeTransportError, type KubeApi, type KubeResponse } from '../kube/kube-api.ts';
import { exitCodeOf, renderSummary } from './migration-report.ts';
import { createRateLimiter } from './rate-limiter.ts';
import { realSleep } from './retry-policy.ts';
import { runMigration, MigrationConfigError, MigrationInterruptedError, type MigrationOptions } from './run-migration.ts';
import type { ProgressSnapshot } from './progress-display.ts';
import { StopRequested } from './stop.ts';

/**
 * A fake API server for the run's error and retry policy only (the real one is in the e2e suite): objects with
 * resourceVersions, a CRD, and a script of failures to inject per request.
 */
function fakeApi(objectCount: number, { storedVersions = ['v1beta1', 'v1'] } = {}) {
  const objects = new Map<string, { metadata: Record<string, unknown>; spec: unknown }>();
  for (let i = 0; i < objectCount; i++) {
    const name = `db-${String(i).padStart(3, '0')}`;
    objects.set(name, { metadata: { name, namespace: 'maps', uid: `uid-${i}`, resourceVersion: '1' }, spec: { i } });
  }
  const crd = {
    metadata: { name: 'geodatabases.geo.example.com', generation: 2, resourceVersion: '10' },
    spec: { group: 'geo.example.com', scope: 'Namespaced', names: { plural: 'geodatabases' }, versions: [{ name: 'v1beta1', served: true }, { name: 'v1', served: true, storage: true }] },
    status: { storedVersions },
  };
  const requests: string[] = [];
  /** Per request line (e.g. "PUT db-001"): errors to throw, in order, before answering normally. */
  const failures = new Map<string, Error[]>();
  const onRequest: Array<(line: string) => void> = [];
  /** Request lines that never get an answer (an API server that froze), until the request's signal is aborted. */
  const hang = new Set<string>();
  const error = (code: number, message = `HTTP ${code}`, extra: object = {}) => new KubeApiError(code, { message, ...extra }, {}, 'fake');
  /** A 404 or 409 about one object, named in the Status's details as the API server does. */
  const about = (code: number, name: string) => error(code, `geodatabases "${name}" not found`, { details: { name, kind: 'geodatabases' } });

  const api: KubeApi = {
    server: 'https://fake',
    async request(method, path, options = {}): Promise<KubeResponse> {
      const name = path.split('/').at(-1)!;
      const line = path.includes('customresourcedefinitions') ? `${method} crd${path.endsWith('/status') ? '/status' : ''}` : path.endsWith('/geodatabases') ? `LIST ${options.query?.['continue'] ?? ''}` : `${method} ${name}`;
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
      if (line === 'PUT crd/status') {
        const body = options.body as typeof crd;
        if (body.metadata.resourceVersion !== crd.metadata.resourceVersion) throw error(409, 'the object has been modified');
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
        return { status: 200, body: { items: page.map((n) => structuredClone(objects.get(n))), metadata: { ...(next ? { continue: next, remainingItemCount: names.length - start - limit } : {}) } } };
      }
      const stored = objects.get(name);
      if (!stored) throw about(404, name);
      if (method === 'GET') return { status: 200, body: structuredClone(stored) };
      const body = options.body as typeof stored;
      if (body.metadata['resourceVersion'] !== stored.metadata['resourceVersion']) throw error(409, 'the object has been modified');
      if (options.query?.['dryRun'] !== 'All') {
        Object.assign(stored, structuredClone(body));
        stored.metadata['resourceVersion'] = String(Number(body.metadata['resourceVersion']) + 1);
      }
      return { status: 200, body: structuredClone(stored) };
    },
  };
  return { api, objects, crd, requests, failures, onRequest, hang, error, about };
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
    expect(report).toMatchObject({ outcome: 'migrated', objects: { seen: 10, rewritten: 10, current: 0, gone: 0, failed: 0 }, storedVersions: { before: ['v1beta1', 'v1'], after: ['v1'] } });
    expect(fake.crd.status.storedVersions).toEqual(['v1']);
    expect(fake.requests.filter((r) => r.startsWith('LIST'))).toEqual(['LIST ', 'LIST 4', 'LIST 8']);
    expect(exitCodeOf(report)).toBe(0);
  });

  it('counts 404 as gone and 409 as already current, and still trims', async () => {
    const fake = fakeApi(5);
    fake.failures.set('PUT db-001', [fake.about(404, 'db-001')]);
    fake.failures.set('PUT db-002', [fake.about(409, 'db-002')]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'migrated', objects: { seen: 5, rewritten: 3, current: 1, gone: 1, failed: 0 } });
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
    expect(exitCodeOf(report)).toBe(1);
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
    expect(retried).toEqual(['list geodatabases.geo.example.com', 'rewrite maps/db-000', 'rewrite maps/db-000', 'update the CRD status']);
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
    expect(exitCodeOf(report)).toBe(1);
  });

  it('carries on from the token a 410 Expired offers', async () => {
    const fake = fakeApi(8);
    fake.failures.set('LIST 4', [fake.error(410, 'the continue token expired', { metadata: { continue: '4' } })]);
    const report = await runMigration(fake.api, options());
    expect(report).toMatchObject({ outcome: 'migrated', objects: { seen: 8, rewritten: 8 } });
  });

  it('lists again from the start after a 410 without a token, without counting objects twice', async () => {
    const fake = fakeApi(8);
    fake.failures.set('LIST 4', [fake.error(410, 'expired')]);
    // Meanwhile someone creates an object that sorts into the first page: the relist's first page has work again.
    fake.onRequest.push((line) => {
      if (line === 'LIST 4' && !fake.objects.has('db-000a')) fake.objects.set('db-000a', { metadata: { name: 'db-000a', namespace: 'maps', uid: 'uid-new', resourceVersion: '1' }, spec: {} });
    });
    const snapshots: ProgressSnapshot[] = [];
    const report = await runMigration(fake.api, options({ onProgress: (snapshot) => snapshots.push(snapshot) }));
    expect(report).toMatchObject({ outcome: 'migrated', objects: { seen: 9, rewritten: 9 } });
    expect(fake.requests.filter((r) => r.startsWith('LIST'))).toEqual(['LIST ', 'LIST 4', 'LIST ', 'LIST 4', 'LIST 8']);
    // The progress total is the collection's size, never the first pass and the relist added up.
    expect(Math.max(...snapshots.map((snapshot) => snapshot.total ?? 0))).toBe(9);
    expect(snapshots.at(-1)).toMatchObject({ done: 9, total: 9 });
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
    expect(exitCodeOf(report)).toBe(3);
  });

  it('mends managedFields of a version no longer served, re-reading an object that changed meanwhile', async () => {
    const fake = fakeApi(3, { storedVersions: ['v1'] });
    const stale = [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'geo.example.com/v1alpha1', fieldsType: 'FieldsV1', fieldsV1: {} }];
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
    expect(fake.objects.get('db-001')!.metadata['managedFields']).toEqual([expect.objectContaining({ apiVersion: 'geo.example.com/v1', fieldsV1: { 'f:metadata': { 'f:name': {} } } })]);
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
    unreachable.failures.set('GET crd', [1, 2, 3].map(() => new KubeTransportError('connect ECONNREFUSED 127.0.0.1:6443')));
    await expect(runMigration(unreachable.api, options())).rejects.toThrow(/cannot reach the API server at https:\/\/fake: connect ECONNREFUSED/);
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
    expect(exitCodeOf(report)).toBe(1);
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
    fake.failures.set('PUT db-005', Array.from({ length: 7 }, () => new KubeTransportError('connect ECONNREFUSED')));
    const stop = new AbortController();
    const startedAt = performance.now();
    const report = await runMigration(fake.api, options({ concurrency: 1, retry: slowRetries, sleep: realSleep, stop: stop.signal, onRetry: () => setTimeout(() => stop.abort(), 20) }));
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(report).toMatchObject({ outcome: 'interrupted', objects: { seen: 5 } });
    expect(fake.requests).not.toContain('PUT crd/status');
    expect(exitCodeOf(report)).toBe(3);
  });

  it("in the rate limiter's wait", async () => {
    const fake = fakeApi(10);
    const stop = new AbortController();
    const startedAt = performance.now();
    setTimeout(() => stop.abort(), 50);
    // Three requests at once (the CRD, a list, a write), then one every 100 s: the run is waiting for a token when the signal comes.
    const report = await runMigration(fake.api, options({ concurrency: 1, limiter: createRateLimiter({ qps: 0.01, burst: 3 }), stop: stop.signal }));
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
    const run = runMigration(fake.api, options({ retry: slowRetries, sleep: realSleep, stop: stop.signal, onRetry: () => stop.abort() }));
    await expect(run).rejects.toBeInstanceOf(MigrationInterruptedError);
  });
});
