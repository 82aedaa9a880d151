/**
 * A client-side token bucket, as client-go's: on average `qps` requests a second, with bursts of up to `burst`.
 * Callers are served in the order they asked, so no worker starves.
 */
export interface RateLimiter {
  /** Resolves when the caller may send one request. */
  take(): Promise<void>;
}

export interface RateLimiterOptions {
  qps: number;
  burst: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function createRateLimiter({ qps, burst, now = () => performance.now(), sleep = defaultSleep }: RateLimiterOptions): RateLimiter {
  if (!(qps > 0) || !(burst >= 1)) throw new RangeError(`a rate limit needs qps > 0 and burst >= 1, got qps ${qps}, burst ${burst}`);
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

  async function takeInTurn(): Promise<void> {
    refill();
    if (tokens < 1) {
      await sleep((1 - tokens) * msPerToken);
      refill();
    }
    tokens -= 1;
  }

  return {
    take() {
      const turn = queue.then(takeInTurn);
      queue = turn;
      return turn;
    },
  };
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
