/**
 * Waits and requests that end at once when their caller is asked to stop. The migration and the API client (and
 * through it the self-managed certificates) all take a stop signal; the helpers live here, below both, so that
 * neither has to import the other to share them.
 */

/** A wait or request ended because its caller was asked to stop: not an API failure, and never retried. */
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
