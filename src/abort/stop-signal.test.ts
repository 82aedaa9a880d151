import { describe, expect, it } from 'vitest';
import { abortableSleep, StopRequested, untilStopped } from './stop-signal.ts';

describe('abortableSleep', () => {
  it('waits the time when nothing stops it', async () => {
    const startedAt = performance.now();
    await abortableSleep(30, new AbortController().signal);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(25);
  });

  it('ends a long wait at once when the signal is aborted, and refuses one already stopped', async () => {
    const stop = new AbortController();
    const startedAt = performance.now();
    setTimeout(() => stop.abort(), 20);
    await expect(abortableSleep(60_000, stop.signal)).rejects.toBeInstanceOf(StopRequested);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    await expect(abortableSleep(60_000, stop.signal)).rejects.toBeInstanceOf(StopRequested);
  });
});

describe('untilStopped', () => {
  it('passes the promise through, or gives up on it at once when the signal is aborted', async () => {
    await expect(untilStopped(Promise.resolve(7), new AbortController().signal, 'x')).resolves.toBe(7);
    const stop = new AbortController();
    const never = untilStopped(new Promise(() => {}), stop.signal, 'x');
    stop.abort();
    await expect(never).rejects.toBeInstanceOf(StopRequested);
  });
});
