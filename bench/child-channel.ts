import { createChildProfiler } from './profile/child-profiler.ts';
import { createTailMonitor, type TailStats } from './tail-monitor.ts';

// The child half of the parent <-> server-process protocol (the parent half is server-process.ts).

export interface ReadyMessage {
  type: 'ready';
  port: number;
  /** performance.now() when listening: milliseconds since this process started. */
  sinceProcessStartMs: number;
}

export interface SampleMessage {
  type: 'sample';
  id: number;
  rssBytes: number;
  /** V8's heap as reserved (not just used): with rssBytes, says whether growth is the JS heap or native memory. */
  heapTotalBytes: number;
  /** User + system CPU time of the whole process (all threads: GC and libuv included). */
  cpuMicros: number;
  /** The child's own clock, so CPU share is CPU time over the child's wall time, free of IPC delays. */
  atMs: number;
  /** Event-loop delay and GC pauses since the previous sample. */
  tail: TailStats;
}

export interface DoneMessage {
  type: 'done';
  id: number;
  error?: string;
}

export type ParentRequest =
  | { type: 'sample'; id: number }
  | { type: 'profile-start'; id: number }
  | { type: 'profile-stop'; id: number; path: string }
  | { type: 'time-in-server'; id: number }
  | { type: 'stop' };

/**
 * Reports the port to the parent, then answers its requests. A stop exits through process.exit after a clean
 * shutdown.
 */
export function serveParent(listening: { port: number; stop: () => Promise<void> }): void {
  const send = (message: ReadyMessage | SampleMessage | DoneMessage) => process.send?.(message);
  const done = (id: number, work: Promise<void>) =>
    work.then(
      () => send({ type: 'done', id }),
      (error: unknown) => send({ type: 'done', id, error: String(error) }),
    );
  let profiler: ReturnType<typeof createChildProfiler> | undefined;
  const tail = createTailMonitor();
  process.on('message', (message: ParentRequest) => {
    switch (message.type) {
      case 'sample': {
        const cpu = process.cpuUsage();
        const memory = process.memoryUsage();
        send({
          type: 'sample',
          id: message.id,
          rssBytes: memory.rss,
          heapTotalBytes: memory.heapTotal,
          cpuMicros: cpu.user + cpu.system,
          atMs: performance.now(),
          tail: tail.take(),
        });
        break;
      }
      case 'profile-start':
        profiler ??= createChildProfiler();
        void done(message.id, profiler.start());
        break;
      case 'profile-stop':
        void done(
          message.id,
          profiler ? profiler.stopInto(message.path) : Promise.reject(new Error('no profile was started')),
        );
        break;
      case 'time-in-server':
        tail.timeInServer();
        send({ type: 'done', id: message.id });
        break;
      case 'stop':
        void listening.stop().finally(() => process.exit(0));
        break;
    }
  });
  // An orphaned server would hold its port and a core: leave with the parent.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', port: listening.port, sinceProcessStartMs: performance.now() });
}
