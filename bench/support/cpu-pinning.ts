import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Where the servers and the load generator run: one core each, or why they are not pinned. */
export type CpuPinning = { serverCore: number; clientCore: number } | { unpinned: string };

export interface CpuPinner {
  pinning: CpuPinning;
  /** Puts every thread of the process on the servers' core (a no-op when unpinned). */
  pinServer(pid: number): Promise<void>;
  /** Puts this process, the load generator, on the other core. */
  pinClient(): Promise<void>;
  /** Gives the processes every core again, for the phases whose goals were set unpinned. */
  unpin(pids: number[]): Promise<void>;
}

/**
 * Servers share one core and the load generator takes another, so a server's helper threads (Go's scheduler and
 * GC workers, libuv's pool, V8's GC) compete with its own request path, not with the client: per-core figures then
 * mean one core. `taskset -a` pins every thread the process has; threads started later inherit it. The Go runtime
 * sizes GOMAXPROCS from the affinity mask at start, before it is pinned, so the peer is started with GOMAXPROCS=1
 * when pinned (what Go picks in a pod limited to one CPU).
 */
export async function createCpuPinner(): Promise<CpuPinner> {
  const cores = availableParallelism();
  const unpinned = (reason: string): CpuPinner => ({
    pinning: { unpinned: reason },
    pinServer: async () => {},
    pinClient: async () => {},
    unpin: async () => {},
  });
  if (cores < 2) return unpinned(`only ${cores} CPU available`);
  try {
    await execFileAsync('taskset', ['--version']);
  } catch {
    return unpinned('taskset (util-linux) is not installed');
  }
  const pinning = { serverCore: cores - 1, clientCore: 0 };
  const pin = async (pid: number, cores: string) => {
    await execFileAsync('taskset', ['-a', '-c', '-p', cores, String(pid)]);
  };
  return {
    pinning,
    pinServer: (pid) => pin(pid, String(pinning.serverCore)),
    pinClient: () => pin(process.pid, String(pinning.clientCore)),
    unpin: async (pids) => {
      for (const pid of [...pids, process.pid]) await pin(pid, `0-${cores - 1}`);
    },
  };
}
