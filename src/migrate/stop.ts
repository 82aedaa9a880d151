/**
 * How `crdgate migrate` stops on SIGTERM within a known time. Kubernetes kills a pod `terminationGracePeriodSeconds`
 * after SIGTERM; a run that is still waiting then (a backoff of up to 30 s, a write of up to its 30 s timeout) dies
 * with 137 and prints nothing. So every wait and every request of the run takes the stop signal: waits end at once,
 * a request in flight gets a short grace to finish (a finished write is progress), and the summary follows.
 */

/** At most this long from SIGTERM to exit; the rendered Job's terminationGracePeriodSeconds is set above it. */
export const MIGRATE_STOP_BOUND_SECONDS = 10;

/** A request in flight when SIGTERM comes may finish within this; then it is abandoned (a rewrite is idempotent). */
export const IN_FLIGHT_GRACE_MS = 5_000;

/** A wait or request ended because the run was asked to stop: not an API failure, and never retried. */
export class StopRequested extends Error {
  override name = 'StopRequested';
  constructor(what = 'the run') {
    super(`${what}: stopped by a signal`);
  }
}

/** Resolves after `ms`, or rejects with StopRequested as soon as `signal` is aborted. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new StopRequested('a wait'));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort(): void {
      clearTimeout(timer);
      reject(new StopRequested('a wait'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `promise`, or StopRequested as soon as `signal` is aborted, whichever comes first. */
export function untilStopped<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new StopRequested(what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new StopRequested(what));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
