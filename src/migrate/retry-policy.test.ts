import { describe, expect, it } from 'vitest';
import { KubeApiError, KubeTransportError } from './kube-api.ts';
import { isRetryable, retryDelayMs, withRetries, type RetryPolicy } from './retry-policy.ts';

const apiError = (code: number, headers: Record<string, string> = {}, status?: object) => new KubeApiError(code, status, headers, 'PUT /x');
const policy = (random: number, retries = 3): RetryPolicy => ({ retries, baseDelayMs: 100, maxDelayMs: 1_000, random: () => random });

describe('isRetryable', () => {
  it.each([429, 408, 500, 502, 503, 504])('retries HTTP %i', (code) => expect(isRetryable(apiError(code))).toBe(true));
  it.each([400, 401, 403, 409, 410, 422])('does not retry HTTP %i: it is an answer', (code) => expect(isRetryable(apiError(code))).toBe(false));
  it('retries a 404 that names no object (the resource is not served yet), not one about an object', () => {
    expect(isRetryable(apiError(404, {}, { reason: 'NotFound', details: { name: 'db-1', kind: 'geodatabases' } }))).toBe(false);
    expect(isRetryable(apiError(404, {}, { reason: 'NotFound', message: 'the server could not find the requested resource' }))).toBe(true);
  });
  it('retries transport failures, not bugs', () => {
    expect(isRetryable(new KubeTransportError('ECONNRESET'))).toBe(true);
    expect(isRetryable(new TypeError('x is undefined'))).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('doubles per attempt, with half of each wait random, and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy(0), attempt, apiError(503)))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy(0.999999), attempt, apiError(503))).map(Math.round)).toEqual([100, 200, 400, 800, 1000]);
  });

  it('waits at least what Retry-After asks, within the cap', () => {
    expect(retryDelayMs(policy(0), 1, apiError(429, { 'retry-after': '0' }))).toBe(50);
    expect(retryDelayMs(policy(0), 1, apiError(429, { 'retry-after': '0.5' }))).toBe(50); // not whole seconds: ignored
    expect(retryDelayMs({ ...policy(0), maxDelayMs: 5_000 }, 1, apiError(429, { 'retry-after': '3' }))).toBe(3_000);
    expect(retryDelayMs(policy(0), 1, apiError(429, { 'retry-after': '3600' }))).toBe(1_000);
    expect(retryDelayMs({ ...policy(0), maxDelayMs: 5_000 }, 1, apiError(429, {}, { details: { retryAfterSeconds: 2 } }))).toBe(2_000);
  });
});

describe('withRetries', () => {
  it('retries until success and reports each wait', async () => {
    const answers: Array<Error | string> = [new KubeTransportError('reset'), apiError(503), 'ok'];
    const waits: number[] = [];
    const result = await withRetries(
      async () => {
        const next = answers.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      policy(0),
      async (ms) => void waits.push(ms),
    );
    expect(result).toBe('ok');
    expect(waits).toEqual([50, 100]);
  });

  it('gives up after the retries with the last error, and never retries an answer', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(apiError(503));
    };
    await expect(withRetries(failing, policy(0, 2), async () => {})).rejects.toMatchObject({ code: 503 });
    expect(calls).toBe(3);
    calls = 0;
    const refused = () => {
      calls++;
      return Promise.reject(apiError(422));
    };
    await expect(withRetries(refused, policy(0, 5), async () => {})).rejects.toMatchObject({ code: 422 });
    expect(calls).toBe(1);
  });
});
