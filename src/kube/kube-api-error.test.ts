import { describe, expect, it } from 'vitest';
import * as testing from '../testing.ts';
import { KubeApiError } from './kube-api.ts';

describe('KubeApiError', () => {
  it('is one class: what crdgate/testing exports is what the API client throws', () => {
    expect(testing.KubeApiError).toBe(KubeApiError);
  });

  it('carries the HTTP code, the Status as sent and its message, and what a retry needs', () => {
    const status = {
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      message: 'slow down',
      details: { retryAfterSeconds: 2, causes: [{ message: 'x' }] },
    };
    const error = new KubeApiError(429, status, { 'retry-after': '5' }, 'PUT /x');
    expect(error).toMatchObject({
      code: 429,
      status,
      message: 'slow down',
      reason: 'TooManyRequests',
      retryAfterSeconds: 5,
      body: JSON.stringify(status),
    });
    const bare = new KubeApiError(502, undefined, {}, 'PUT /x');
    expect(bare).toMatchObject({ code: 502, message: 'PUT /x: HTTP 502', reason: '', body: '{}' });
    // Exactly an empty Status: toMatchObject would take any object for `{}`.
    expect(bare.status).toEqual({});
  });
});
