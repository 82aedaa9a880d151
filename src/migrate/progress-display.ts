/** How far a run is: objects done so far, and the total when the API server said how many remain. */
export interface ProgressSnapshot {
  /** Objects gone through; with --shard, the other shards' too (passed over), so that it reaches the total. */
  done: number;
  total: number | undefined;
  elapsedMs: number;
  /** With --shard: how many of `done` were this shard's own. */
  own?: number;
}

export interface ProgressDisplay {
  update(snapshot: ProgressSnapshot): void;
  /** Leaves the terminal on a fresh line; prints nothing in a log. */
  finish(): void;
}

export interface ProgressDisplayOptions {
  write: (text: string) => void;
  /** A terminal gets a bar redrawn in place; a Job's log gets a line every `intervalMs`. */
  terminal: boolean;
  intervalMs?: number;
  now?: () => number;
}

const BAR_WIDTH = 30;
const REDRAW_MS = 100;

export function createProgressDisplay({
  write,
  terminal,
  intervalMs = 5_000,
  now = () => performance.now(),
}: ProgressDisplayOptions): ProgressDisplay {
  let lastShownAt = -Infinity;
  let drawn = false;
  const every = terminal ? REDRAW_MS : intervalMs;

  function update(snapshot: ProgressSnapshot): void {
    const current = now();
    const complete = snapshot.total !== undefined && snapshot.done >= snapshot.total;
    if (current - lastShownAt < every && !(terminal && complete)) return;
    lastShownAt = current;
    if (terminal) {
      write(`\r${bar(snapshot)} ${describe(snapshot)}\u001b[K`);
      drawn = true;
    } else {
      write(`progress: ${describe(snapshot)}\n`);
    }
  }

  function finish(): void {
    if (drawn) write('\n');
    drawn = false;
  }

  return { update, finish };
}

export function describe({ done, total, elapsedMs, own }: ProgressSnapshot): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const parts = [
    total !== undefined
      ? `${done}/${total} objects (${Math.floor((100 * done) / Math.max(total, 1))}%)`
      : `${done} objects`,
  ];
  if (own !== undefined) parts.push(`${own} of them this shard's`);
  parts.push(`${rate.toFixed(1)} objects/s`);
  if (total !== undefined && rate > 0 && done < total) parts.push(`about ${formatSeconds((total - done) / rate)} left`);
  return parts.join(', ');
}

function bar({ done, total }: ProgressSnapshot): string {
  const filled = total ? Math.min(BAR_WIDTH, Math.round((BAR_WIDTH * done) / total)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.ceil(seconds - minutes * 60)} s`;
}
