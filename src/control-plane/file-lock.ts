import { hostname } from 'node:os';
import { link, readFile, rm, writeFile } from 'node:fs/promises';

// A lock across the processes of one machine, as a file: two processes that need the same tool at once (two vitest
// projects' setups, `crdgate dev` beside a test run, two checkouts on one machine) must not both build it, since on 2
// cores each build then takes twice as long, long enough to run past a test's timeout; two test files that run side
// by side must not both bind a host port. The file says who holds the lock; the others wait for it.

/** How often a waiting process looks at the lock again, and how often it says that it is still waiting. */
const POLL_MS = 500;
const WAITING_NOTICE_MS = 30_000;

interface LockHolder {
  pid: number;
  host: string;
  since: number;
}

/**
 * Runs `work` while holding the lock file `lockPath` (see acquireFileLock). The lock is released when `work`
 * settles, whatever its outcome.
 */
export async function withFileLock<T>(
  lockPath: string,
  what: string,
  log: (line: string) => void,
  work: () => Promise<T>,
): Promise<T> {
  const release = await acquireFileLock(lockPath, what, log);
  try {
    return await work();
  } finally {
    await release();
  }
}

/**
 * Takes the lock file `lockPath`, waiting first for any other process that holds it, and resolves with what releases
 * it. A lock left by a process of this host that no longer runs (killed in the middle of a build) is taken over.
 */
export async function acquireFileLock(
  lockPath: string,
  what: string,
  log: (line: string) => void,
): Promise<() => Promise<void>> {
  let waitingSince: number | undefined;
  let lastNotice = 0;
  for (;;) {
    if (await tryCreate(lockPath)) {
      if (waitingSince !== undefined)
        log(`${what}: the other holder let go after ${seconds(Date.now() - waitingSince)} of waiting`);
      return () => rm(lockPath, { force: true });
    }
    const text = await readFile(lockPath, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // released between the two calls
    const other = parseHolder(text);
    if (other === undefined || isGone(other)) {
      // Only the lock as it was read is removed: a waiter that took it over in between keeps its own.
      if ((await readFile(lockPath, 'utf8').catch(() => undefined)) === text) {
        log(`${what}: taking over ${lockPath}, left by ${describeHolder(other)}, which no longer runs`);
        await rm(lockPath, { force: true });
      }
      continue;
    }
    const now = Date.now();
    waitingSince ??= now;
    if (now - lastNotice >= WAITING_NOTICE_MS) {
      log(`${what}: waiting for ${describeHolder(other)}, which has held it for ${seconds(now - other.since)}`);
      lastNotice = now;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Creates the lock with its content in one step: written to a file of this process's own, then linked to the lock's
 * name, which fails when the name exists. So no other process ever reads a lock that is still being written.
 */
async function tryCreate(lockPath: string): Promise<boolean> {
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: Date.now() };
  const own = `${lockPath}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(own, `${JSON.stringify(holder)}\n`);
  try {
    await link(own, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(own, { force: true });
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.since === 'number')
      return { pid: parsed.pid, host: parsed.host, since: parsed.since };
  } catch {
    // not a lock this code wrote: no one holds it
  }
  return undefined;
}

/** A holder on another host (a shared home folder) is never judged gone: only its own host can tell. */
function isGone(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function describeHolder(holder: LockHolder | undefined): string {
  return holder === undefined
    ? 'no process (it is not a lock crdgate wrote)'
    : `process ${holder.pid} on ${holder.host}`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}
