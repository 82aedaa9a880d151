import { describe, expect, it } from 'vitest';
import { KubeApiError, KubeTransportError } from '../kube/kube-api.ts';
import { KubeconfigError } from '../kube/kubeconfig-error.ts';
import {
  classifyError,
  realSleep,
  retryDelayMs,
  withRetries,
  type Operation,
  type RetryPolicy,
} from './retry-policy.ts';
import { StopRequested } from '../abort/stop-signal.ts';

const apiError = (code: number, headers: Record<string, string> = {}, status?: object) =>
  new KubeApiError(code, status, headers, 'PUT /x');
const policy = (random: number, retries = 3): RetryPolicy => ({
  retries,
  baseDelayMs: 100,
  maxDelayMs: 1_000,
  random: () => random,
});
const named = (code: number) => apiError(code, {}, { reason: 'x', details: { name: 'db-1', kind: 'geodatabases' } });
const operations: Operation[] = ['read-crd', 'list', 'write-object', 'write-status', 'read-record', 'write-record'];

describe('classifyError', () => {
  it.each([429, 408, 500, 502, 503, 504])('retries HTTP %i whatever the request', (code) => {
    for (const operation of operations) expect(classifyError(apiError(code), operation).class).toBe('retry');
  });
  it('retries a 404 that names no object (the resource is not served yet); one about an object is gone', () => {
    expect(classifyError(named(404), 'write-object').class).toBe('gone');
    expect(
      classifyError(apiError(404, {}, { message: 'the server could not find the requested resource' }), 'write-object')
        .class,
    ).toBe('retry');
  });
  it('retries transport failures; a bug is a crash, never an API failure', () => {
    expect(classifyError(new KubeTransportError('ECONNRESET'), 'list').class).toBe('retry');
    for (const operation of operations)
      expect(classifyError(new TypeError('x is undefined'), operation).class).toBe('crash');
  });
  it('stops the run with the real cause: 401 unauthorized anywhere, 403 forbidden on all but an object write', () => {
    for (const operation of operations)
      expect(classifyError(apiError(401), operation)).toMatchObject({ class: 'stop', cause: 'unauthorized' });
    expect(
      classifyError(
        new KubeconfigError({
          problem: 'no-credentials',
          server: 'https://127.0.0.1:6443',
          detail: 'exec plugin failed',
        }),
        'list',
      ),
    ).toMatchObject({ class: 'stop', cause: 'unauthorized' });
    for (const operation of ['read-crd', 'list', 'write-status'] as const)
      expect(classifyError(apiError(403), operation)).toMatchObject({ class: 'stop', cause: 'forbidden' });
    expect(classifyError(apiError(422), 'write-status')).toMatchObject({ class: 'stop', cause: 'rejected' });
    expect(classifyError(apiError(400), 'list')).toMatchObject({ class: 'stop', cause: 'rejected' });
  });
  it.each([400, 403, 422])('takes HTTP %i on an object write as an answer about that object', (code) => {
    expect(classifyError(apiError(code), 'write-object')).toMatchObject({ class: 'refused', error: { code } });
  });
  it('reads 409 as a conflict on writes, 410 as an expired token on lists, and a stop request as interrupted', () => {
    expect(classifyError(named(409), 'write-object').class).toBe('conflict');
    expect(classifyError(apiError(409), 'write-status').class).toBe('conflict');
    expect(classifyError(apiError(410, {}, { metadata: { continue: 'next' } }), 'list')).toMatchObject({
      class: 'expired',
      continueToken: 'next',
    });
    expect(classifyError(apiError(410), 'read-crd')).toMatchObject({ class: 'stop', cause: 'rejected' });
    expect(classifyError(new StopRequested(), 'write-object').class).toBe('interrupted');
  });
  it("reads the shards' ConfigMap: absent on a 404 naming it, a conflict on a 409 when written, forbidden on a 403", () => {
    expect(classifyError(named(404), 'read-record').class).toBe('gone');
    expect(classifyError(named(409), 'write-record').class).toBe('conflict');
    expect(classifyError(apiError(409), 'read-record')).toMatchObject({ class: 'stop', cause: 'rejected' });
    // Creating it in a namespace that does not exist: a 404 about the namespace, which no retry mends.
    expect(classifyError(named(404), 'write-record')).toMatchObject({ class: 'stop', cause: 'rejected' });
    for (const operation of ['read-record', 'write-record'] as const)
      expect(classifyError(apiError(403), operation)).toMatchObject({ class: 'stop', cause: 'forbidden' });
  });
});

describe('retryDelayMs', () => {
  it('doubles per attempt, with half of each wait random, and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy(0), attempt, apiError(503)))).toEqual([
      50, 100, 200, 400, 500,
    ]);
    expect(
      [1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy(0.999999), attempt, apiError(503))).map(Math.round),
    ).toEqual([100, 200, 400, 800, 1000]);
  });

  it('waits at least what Retry-After asks, within the cap', () => {
    expect(retryDelayMs(policy(0), 1, apiError(429, { 'retry-after': '0' }))).toBe(50);
    expect(retryDelayMs(policy(0), 1, apiError(429, { 'retry-after': '0.5' }))).toBe(50); // not whole seconds: ignored
    expect(retryDelayMs({ ...policy(0), maxDelayMs: 5_000 }, 1, apiError(429, { 'retry-after': '3' }))).toBe(3_000);
    expect(retryDelayMs(policy(0), 1, apiError(429, { 'retry-after': '3600' }))).toBe(1_000);
    expect(
      retryDelayMs({ ...policy(0), maxDelayMs: 5_000 }, 1, apiError(429, {}, { details: { retryAfterSeconds: 2 } })),
    ).toBe(2_000);
  });
});

describe('withRetries', () => {
  const context = (
    retries: number,
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    signal?: AbortSignal,
  ) => ({ operation: 'write-object' as const, policy: policy(0, retries), sleep, signal });

  it('retries until success and reports each wait', async () => {
    const answers: Array<Error | string> = [new KubeTransportError('reset'), apiError(503), 'ok'];
    const waits: number[] = [];
    const result = await withRetries(
      async () => {
        const next = answers.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      { ...context(3, async () => {}), onRetry: (_error, ms) => void waits.push(ms) },
    );
    expect(result).toEqual({ ok: true, value: 'ok' });
    expect(waits).toEqual([50, 100]);
  });

  it('gives up after the retries as "unavailable" with the last error, and never retries an answer', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(apiError(503));
    };
    expect(
      await withRetries(
        failing,
        context(2, async () => {}),
      ),
    ).toMatchObject({ ok: false, class: 'stop', cause: 'unavailable', error: { code: 503 } });
    expect(calls).toBe(3);
    calls = 0;
    const refused = () => {
      calls++;
      return Promise.reject(apiError(422));
    };
    expect(
      await withRetries(
        refused,
        context(5, async () => {}),
      ),
    ).toMatchObject({ ok: false, class: 'refused', error: { code: 422 } });
    expect(calls).toBe(1);
  });

  it('throws a bug instead of calling it an API failure', async () => {
    await expect(
      withRetries(
        () => Promise.reject(new TypeError('boom')),
        context(5, async () => {}),
      ),
    ).rejects.toThrow(TypeError);
  });

  it('ends a backoff at once when the stop signal comes, as interrupted', async () => {
    const stop = new AbortController();
    const slow: RetryPolicy = { retries: 6, baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 0 };
    const startedAt = performance.now();
    const attempt = withRetries(() => Promise.reject(apiError(503)), {
      operation: 'list',
      policy: slow,
      sleep: realSleep,
      signal: stop.signal,
      onRetry: () => setTimeout(() => stop.abort(), 20),
    });
    expect(await attempt).toEqual({ ok: false, class: 'interrupted' });
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});
