import { post, type Target } from './support/https-client.ts';
import { percentile } from './support/percentile.ts';
import { withTimeout } from './support/with-timeout.ts';

export interface LatencyOptions {
  target: Target;
  path: string;
  body: Buffer;
  ratePerSecond: number;
  /** Requests scheduled in the warm-up are sent but not recorded. */
  warmupMs: number;
  measureMs: number;
  /** How long to wait for the last answers once everything is sent; those still missing then count as unanswered. */
  drainTimeoutMs: number;
}

export interface LatencyResult {
  ratePerSecond: number;
  /** Every request sent, warm-up included: what the server handled while its GC statistics were taken. */
  sent: number;
  recorded: number;
  /** Not answered by the end of the drain time (an overloaded server's queue), or failed. */
  unanswered: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** How late the load generator itself sent requests (p99): its timer granularity is part of every latency. */
  sendLagP99Ms: number;
  failures: number;
  firstFailure?: string;
}

// The timer runs every millisecond; requests due in between leave together, their lateness counted as latency.
const tickMs = 1;

/**
 * Open loop: request i is due at start + i / rate whether or not earlier ones were answered, and its latency runs
 * from when it was due, not when it left, so a stalled server is charged for the requests it delayed
 * (no coordinated omission).
 */
export async function measureLatency(options: LatencyOptions): Promise<LatencyResult> {
  const intervalMs = 1000 / options.ratePerSecond;
  const total = Math.ceil(((options.warmupMs + options.measureMs) / 1000) * options.ratePerSecond);
  const firstRecorded = Math.ceil((options.warmupMs / 1000) * options.ratePerSecond);
  // Infinity until answered: a request that never comes back is the slowest of all, not one left out.
  const latencies = new Float64Array(total - firstRecorded).fill(Number.POSITIVE_INFINITY);
  const sendLags = new Float64Array(total - firstRecorded).fill(Number.NaN);
  const inFlight = new Set<Promise<void>>();
  let failures = 0;
  let firstFailure: string | undefined;

  function send(index: number, dueAt: number): void {
    const sentAt = performance.now();
    const request = post(options.target, options.path, options.body)
      .then((answer) => {
        if (answer.status !== 200) throw new Error(`HTTP ${answer.status}`);
        if (index >= firstRecorded) {
          latencies[index - firstRecorded] = performance.now() - dueAt;
          sendLags[index - firstRecorded] = sentAt - dueAt;
        }
      })
      .catch((error: unknown) => {
        failures++;
        firstFailure ??= (error as Error).message;
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  }

  const start = performance.now() + tickMs;
  await new Promise<void>((resolve) => {
    let next = 0;
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        send(next, start + next * intervalMs);
        next++;
      }
      if (next < total) setTimeout(tick, tickMs);
      else resolve();
    };
    setTimeout(tick, tickMs);
  });
  // Requests still pending after the drain time are abandoned: the caller's agent.destroy() ends them.
  await withTimeout(Promise.all(inFlight), options.drainTimeoutMs, 'the last answers').catch(() => {});

  // A copy: answers that arrive after this point must not write into what is being summarized.
  const recorded = Float64Array.from(latencies).sort();
  const unanswered = recorded.filter((value) => value === Number.POSITIVE_INFINITY).length;
  const lags = sendLags.filter((value) => !Number.isNaN(value)).sort();
  return {
    ratePerSecond: options.ratePerSecond,
    sent: total,
    recorded: recorded.length - unanswered,
    unanswered,
    p50Ms: percentile(recorded, 50),
    p90Ms: percentile(recorded, 90),
    p99Ms: percentile(recorded, 99),
    maxMs: recorded.at(-1) ?? Number.NaN,
    sendLagP99Ms: percentile(lags, 99),
    failures,
    ...(firstFailure !== undefined ? { firstFailure } : {}),
  };
}
