import { KubeApiError, KubeTransportError } from './kube-api.ts';

/**
 * Every retry decision of the migration lives here: which failures are worth another try, and how long to wait.
 * Retried: 429 (the API server's priority and fairness shedding load), 5xx (including a webhook that could not be
 * called), 408, a 404 that names no object (the resource is not served yet, as right after an API server restart),
 * and transport failures (resets, refused connections, timeouts). Everything else is an answer.
 */
export interface RetryPolicy {
  /** Attempts after the first one. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** In [0, 1); tests pin it. */
  random: () => number;
}

export const defaultRetryPolicy = (retries: number): RetryPolicy => ({
  retries,
  // With the default 6 retries the waits add up to at least ~16 s: enough for an API server to restart.
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  random: Math.random,
});

export function isRetryable(error: unknown): boolean {
  if (error instanceof KubeTransportError) return true;
  if (!(error instanceof KubeApiError)) return false;
  return error.code === 429 || error.code === 408 || error.code >= 500 || (error.code === 404 && error.objectName === undefined);
}

/**
 * The wait before retry number `attempt` (1-based): exponential, capped, with "equal jitter" (half fixed, half
 * random) so that workers retrying together spread out, yet the total wait never shrinks below half the schedule.
 * A Retry-After from the server is a floor: it knows better when it will have room.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, error: unknown): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + (policy.random() * exponential) / 2;
  const serverAsked = error instanceof KubeApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
  return Math.max(jittered, Math.min(serverAsked, policy.maxDelayMs));
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Calls `call` until it succeeds, fails with an answer that is not worth retrying, or the retries run out. */
export async function withRetries<T>(call: () => Promise<T>, policy: RetryPolicy, sleep: Sleep, onRetry?: (error: unknown, delayMs: number) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isRetryable(error) || attempt > policy.retries) throw error;
      const delayMs = retryDelayMs(policy, attempt, error);
      onRetry?.(error, delayMs);
      await sleep(delayMs);
    }
  }
}

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
