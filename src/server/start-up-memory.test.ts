import { describe, expect, it } from 'vitest';
import { releaseStartUpGarbage } from './start-up-memory.ts';

describe('releaseStartUpGarbage', () => {
  it('gives back the heap that garbage grew, and exposes no global gc', () => {
    // Garbage that outlives the young generation, as a CRD's parse does: V8 grows the old space and keeps it.
    let kept: unknown[] = [];
    for (let round = 0; round < 40; round += 1) kept.push(Array.from({ length: 50_000 }, (_, i) => ({ i, round })));
    kept = [];
    const grown = process.memoryUsage().heapTotal;
    releaseStartUpGarbage();
    expect(process.memoryUsage().heapTotal).toBeLessThan(grown / 2);
    expect(kept).toEqual([]);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
