import { KubeApiError, KubeTransportError } from '../kube/kube-api.ts';
import { KubeconfigError } from '../kube/kubeconfig-error.ts';
import { abortableSleep, StopRequested } from '../abort/stop-signal.ts';

/**
 * Every error decision of the migration lives here, as kube-storage-version-migrator keeps it in
 * pkg/migrator/errors.go: each error of a request is classified once, by what the request was, and the run acts on
 * the class. Retried: 429 (the API server's priority and fairness shedding load), 5xx (including a webhook that
 * could not be called), 408, a 404 that names no object (the resource is not served yet, as right after an API
 * server restart), and transport failures (resets, refused connections, timeouts). Everything else is an answer.
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

/**
 * What a request was: the same status means different things for a list, an object's write or the CRD's status.
 * `read-record` and `write-record` are the shards' ConfigMap (shard-record.ts).
 */
export type Operation = 'read-crd' | 'list' | 'write-object' | 'write-status' | 'read-record' | 'write-record';

/** Why a run stopped before its end, for the report and the exit code. */
export type StopCause =
  /** 401, or credentials that cannot be loaded. */
  | 'unauthorized'
  /** 403 on anything but an object's write: the role lacks a verb the run needs. */
  | 'forbidden'
  /** Retryable failures past the retries. */
  | 'unavailable'
  /** Any other answer that leaves the run no way on (a refused status write, a 410 once too often). */
  | 'rejected';

export type Failure =
  /** An object's write or read: 404 naming the object, which was deleted meanwhile; the shards' ConfigMap is absent. */
  | { class: 'gone'; error: KubeApiError }
  /** 409: someone wrote the object (the CRD, the ConfigMap) since it was read; for an object, it is then already current. */
  | { class: 'conflict'; error: KubeApiError }
  /** A list's continue token expired (410); the server may offer one to carry on from. */
  | { class: 'expired'; continueToken: string | undefined; error: KubeApiError }
  /** An answer about this one object (400, 403, 422: an admission webhook or policy refusing it); the run goes on. */
  | { class: 'refused'; error: KubeApiError }
  /** The run cannot go on: `error` is the real cause, the last one when retries ran out. */
  | { class: 'stop'; cause: StopCause; error: Error }
  /** The stop signal came (SIGTERM). */
  | { class: 'interrupted' };

export type Classified = Failure | { class: 'retry' } | { class: 'crash' };

/**
 * The one classifier. A `crash` is an error that is not about the API at all (a bug in crdgate): it is never
 * dressed up as an API failure, it propagates.
 */
export function classifyError(error: unknown, operation: Operation): Classified {
  if (error instanceof StopRequested) return { class: 'interrupted' };
  if (error instanceof KubeTransportError) return { class: 'retry' };
  if (error instanceof KubeconfigError) return { class: 'stop', cause: 'unauthorized', error };
  if (!(error instanceof KubeApiError)) return { class: 'crash' };
  const { code } = error;
  if (code === 429 || code === 408 || code >= 500 || (code === 404 && error.objectName === undefined))
    return { class: 'retry' };
  if (code === 401) return { class: 'stop', cause: 'unauthorized', error };
  if (code === 404 && (operation === 'write-object' || operation === 'read-record')) return { class: 'gone', error };
  if (code === 409 && (operation === 'write-object' || operation === 'write-status' || operation === 'write-record'))
    return { class: 'conflict', error };
  if (code === 410 && operation === 'list') return { class: 'expired', continueToken: error.continueToken, error };
  if (operation === 'write-object') return { class: 'refused', error };
  if (code === 403) return { class: 'stop', cause: 'forbidden', error };
  return { class: 'stop', cause: 'rejected', error };
}

export type Attempt<T> = { ok: true; value: T } | ({ ok: false } & Failure);

export interface RetryContext {
  operation: Operation;
  policy: RetryPolicy;
  sleep: Sleep;
  /** Ends a backoff at once. */
  signal?: AbortSignal;
  onRetry?: (error: unknown, delayMs: number) => void;
}

/**
 * Calls `call` until it succeeds, fails with an error that is not worth retrying, or the retries run out (then it is
 * a `stop` with cause `unavailable` and the last error). A crash is thrown, not returned.
 */
export async function withRetries<T>(
  call: () => Promise<T>,
  { operation, policy, sleep, signal, onRetry }: RetryContext,
): Promise<Attempt<T>> {
  for (let attempt = 1; ; attempt++) {
    let error: unknown;
    try {
      return { ok: true, value: await call() };
    } catch (caught) {
      error = caught;
    }
    const classified = classifyError(error, operation);
    if (classified.class === 'crash') throw error;
    if (classified.class !== 'retry') return { ok: false, ...classified };
    if (attempt > policy.retries) return { ok: false, class: 'stop', cause: 'unavailable', error: error as Error };
    const delayMs = retryDelayMs(policy, attempt, error);
    onRetry?.(error, delayMs);
    try {
      await sleep(delayMs, signal);
    } catch (stopped) {
      if (stopped instanceof StopRequested) return { ok: false, class: 'interrupted' };
      throw stopped;
    }
  }
}

/**
 * The wait before retry number `attempt` (1-based): exponential, capped, with "equal jitter" (half fixed, half
 * random) so that workers retrying together spread out, yet the total wait never shrinks below half the schedule.
 * A Retry-After from the server is a floor: it knows better when it will have room.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, error: unknown): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + (policy.random() * exponential) / 2;
  const serverAsked =
    error instanceof KubeApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
  return Math.max(jittered, Math.min(serverAsked, policy.maxDelayMs));
}

/** Waits `ms`; rejects with StopRequested as soon as `signal` is aborted. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = abortableSleep;
