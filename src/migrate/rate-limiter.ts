import { abortableSleep, StopRequested, untilStopped } from '../abort/stop-signal.ts';

/**
 * A client-side token bucket, as client-go's: on average `qps` requests a second, with bursts of up to `burst`.
 * Callers are served in the order they asked, so no worker starves.
 */
export interface RateLimiter {
  /**
   * Resolves when the caller may send one request; rejects with StopRequested as soon as `signal` is aborted, whether
   * the caller is still queued behind others or waiting for its token (at a low --qps that can be seconds).
   */
  take(signal?: AbortSignal): Promise<void>;
}

export interface RateLimiterOptions {
  qps: number;
  burst: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function createRateLimiter({
  qps,
  burst,
  now = () => performance.now(),
  sleep = abortableSleep,
}: RateLimiterOptions): RateLimiter {
  if (!(qps > 0) || !(burst >= 1))
    throw new RangeError(`a rate limit needs qps > 0 and burst >= 1, got qps ${qps}, burst ${burst}`);
  const msPerToken = 1000 / qps;
  let tokens = burst;
  let updatedAt = now();
  // Reservations chain: each caller waits for the one before it, then for its own token.
  let queue: Promise<void> = Promise.resolve();

  function refill(): void {
    const current = now();
    tokens = Math.min(burst, tokens + (current - updatedAt) / msPerToken);
    updatedAt = current;
  }

  async function takeInTurn(signal: AbortSignal | undefined): Promise<void> {
    // A caller that gave up while queued takes no token from those behind it.
    if (signal?.aborted) throw new StopRequested('waiting for the rate limiter');
    refill();
    if (tokens < 1) {
      await sleep((1 - tokens) * msPerToken, signal);
      refill();
    }
    tokens -= 1;
  }

  return {
    take(signal) {
      const turn = queue.then(() => takeInTurn(signal));
      // The next caller waits for this turn to end, however it ends.
      queue = turn.catch(() => {});
      return untilStopped(turn, signal, 'waiting for the rate limiter');
    },
  };
}
