import { describe, expect, it } from 'vitest';
import { createProgressDisplay, describe as describeProgress } from './progress-display.ts';

function display(terminal: boolean) {
  let time = 0;
  const written: string[] = [];
  const progress = createProgressDisplay({
    write: (text) => written.push(text),
    terminal,
    intervalMs: 5_000,
    now: () => time,
  });
  return { progress, written, at: (ms: number) => void (time = ms) };
}

describe('progress display', () => {
  it('prints a line every interval in a log, with the rate and what is left', () => {
    const { progress, written, at } = display(false);
    progress.update({ done: 1, total: 100, elapsedMs: 100 });
    at(1_000);
    progress.update({ done: 10, total: 100, elapsedMs: 1_000 }); // within the interval: nothing
    at(5_000);
    progress.update({ done: 50, total: 100, elapsedMs: 5_000 });
    progress.finish();
    expect(written).toEqual([
      'progress: 1/100 objects (1%), 10.0 objects/s, about 10 s left\n',
      'progress: 50/100 objects (50%), 10.0 objects/s, about 5 s left\n',
    ]);
  });

  it('redraws a bar in place on a terminal, and leaves it on its own line at the end', () => {
    const { progress, written, at } = display(true);
    progress.update({ done: 0, total: 30, elapsedMs: 0 });
    at(200);
    progress.update({ done: 15, total: 30, elapsedMs: 200 });
    progress.finish();
    expect(written[1]).toBe(
      `\r[${'#'.repeat(15)}${'.'.repeat(15)}] 15/30 objects (50%), 75.0 objects/s, about 1 s left\u001b[K`,
    );
    expect(written.at(-1)).toBe('\n');
  });

  it('says how many objects without a total, and minutes for long estimates', () => {
    expect(describeProgress({ done: 7, total: undefined, elapsedMs: 1_000 })).toBe('7 objects, 7.0 objects/s');
    expect(describeProgress({ done: 100, total: 10_000, elapsedMs: 10_000 })).toBe(
      '100/10000 objects (1%), 10.0 objects/s, about 16 min 30 s left',
    );
  });

  it("with --shard, goes through every listed object and says how many were the shard's own", () => {
    expect(describeProgress({ done: 40, total: 80, elapsedMs: 1_000, own: 10 })).toBe(
      "40/80 objects (50%), 10 of them this shard's, 40.0 objects/s, about 1 s left",
    );
  });
});
