import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abandonAfterStop } from './abandon-after-stop.ts';

describe('abandonAfterStop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is not aborted while nothing asks to stop', () => {
    const requests = abandonAfterStop(new AbortController().signal, 100);
    vi.advanceTimersByTime(60_000);
    expect(requests.signal.aborted).toBe(false);
    requests.dispose();
  });

  it('is aborted the grace after the stop, not before', () => {
    const stop = new AbortController();
    const requests = abandonAfterStop(stop.signal, 5_000);
    vi.advanceTimersByTime(10_000);
    stop.abort();
    vi.advanceTimersByTime(4_999);
    expect(requests.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(requests.signal.aborted).toBe(true);
    requests.dispose();
  });

  it('counts the grace from now when the stop came before it was made', () => {
    const stop = new AbortController();
    stop.abort();
    const requests = abandonAfterStop(stop.signal, 50);
    expect(requests.signal.aborted).toBe(false);
    vi.advanceTimersByTime(50);
    expect(requests.signal.aborted).toBe(true);
  });

  it('once disposed, is never aborted: neither by a stop that comes later nor by a grace already running', () => {
    const later = new AbortController();
    const beforeStop = abandonAfterStop(later.signal, 50);
    beforeStop.dispose();
    later.abort();
    const running = new AbortController();
    const inGrace = abandonAfterStop(running.signal, 50);
    running.abort();
    inGrace.dispose();
    vi.advanceTimersByTime(1_000);
    expect(beforeStop.signal.aborted).toBe(false);
    expect(inGrace.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
