import { describe, expect, it } from 'vitest';
import { RestartBackoff } from './restart-backoff.ts';

describe('RestartBackoff', () => {
  it('starts a process that served a while again at once', () => {
    const backoff = new RestartBackoff();
    expect(backoff.delayAfterDeath(0, 60_000)).toBe(0);
    expect(backoff.delayAfterDeath(60_000, 120_000)).toBe(0);
  });

  it('waits longer after each process that died soon after it started, up to half a minute, and forgets once one lasts', () => {
    const backoff = new RestartBackoff();
    const quick = (n: number) => backoff.delayAfterDeath(n * 1_000, n * 1_000 + 500);
    expect([1, 2, 3, 4, 5, 6, 7].map(quick)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(backoff.delayAfterDeath(0, 31_000)).toBe(0);
    expect(quick(100)).toBe(1_000);
  });
});
