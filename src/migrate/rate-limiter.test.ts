import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.ts';
import { StopRequested } from '../abort/stop-signal.ts';

/** A clock that only moves when someone sleeps, so the limiter's schedule can be read off exactly. */
function fakeClock() {
  let time = 0;
  return { now: () => time, sleep: async (ms: number) => void (time += ms), time: () => time };
}

describe('createRateLimiter', () => {
  it('lets a burst through at once, then one request per 1/qps seconds', async () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ qps: 10, burst: 3, now: clock.now, sleep: clock.sleep });
    const startedAt: number[] = [];
    for (let i = 0; i < 6; i++) {
      await limiter.take();
      startedAt.push(clock.time());
    }
    expect(startedAt.map(Math.round)).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('serves concurrent callers in order and holds them to the same rate', async () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ qps: 4, burst: 1, now: clock.now, sleep: clock.sleep });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((id) => limiter.take().then(() => order.push(id))));
    expect(order).toEqual([0, 1, 2, 3]);
    expect(Math.round(clock.time())).toBe(750);
  });

  it('refills while idle, up to the burst', async () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ qps: 10, burst: 2, now: clock.now, sleep: clock.sleep });
    await limiter.take();
    await limiter.take();
    await clock.sleep(10_000); // a long pause earns no more than the burst
    const before = clock.time();
    await limiter.take();
    await limiter.take();
    expect(clock.time()).toBe(before);
    await limiter.take();
    expect(Math.round(clock.time() - before)).toBe(100);
  });

  it('refuses a limit that would never let anything through', () => {
    expect(() => createRateLimiter({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => createRateLimiter({ qps: 5, burst: 0 })).toThrow(RangeError);
  });
});

describe('createRateLimiter with a stop signal', () => {
  it('ends the wait for a token, and the wait in the queue, at once when the signal is aborted', async () => {
    // Real timers: one token, then one every 100 s.
    const limiter = createRateLimiter({ qps: 0.01, burst: 1 });
    const stop = new AbortController();
    await limiter.take(stop.signal);
    const waiting = limiter.take(stop.signal);
    const queued = limiter.take(stop.signal);
    const startedAt = performance.now();
    setTimeout(() => stop.abort(), 20);
    await expect(waiting).rejects.toBeInstanceOf(StopRequested);
    await expect(queued).rejects.toBeInstanceOf(StopRequested);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });

  it('refuses at once once stopped, without taking a token from callers without that signal', async () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ qps: 10, burst: 1, now: clock.now, sleep: clock.sleep });
    const stopped = AbortSignal.abort();
    await expect(limiter.take(stopped)).rejects.toBeInstanceOf(StopRequested);
    await limiter.take();
    expect(clock.time()).toBe(0);
  });
});
