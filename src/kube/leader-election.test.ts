import { describe, expect, it } from 'vitest';
import { leaseAction, microTime } from './leader-election.ts';

describe('leaseAction', () => {
  const duration = 15_000;
  it('renews its own Lease and takes a free one', () => {
    expect(leaseAction({ holderIdentity: 'me', leaseDurationSeconds: 15 }, 'me', 0, 100_000, duration)).toBe('renew');
    expect(leaseAction(undefined, 'me', 0, 0, duration)).toBe('acquire');
    expect(leaseAction({ holderIdentity: '' }, 'me', 0, 0, duration)).toBe('acquire');
  });

  it("waits out another holder's duration from when this process saw the Lease change, not from the time written in it", () => {
    const held = { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: '2000-01-01T00:00:00.000000Z' };
    expect(leaseAction(held, 'me', 50_000, 64_000, duration)).toBe('wait');
    expect(leaseAction(held, 'me', 50_000, 65_001, duration)).toBe('acquire');
  });
});

describe('microTime', () => {
  it('writes six fractional digits, as a Lease MicroTime must have', () => {
    expect(microTime(Date.UTC(2026, 10, 24, 1, 2, 3, 45))).toBe('2026-11-24T01:02:03.045000Z');
  });
});
