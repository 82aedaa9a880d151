import { subscribe } from 'node:diagnostics_channel';
import {
  createHistogram,
  monitorEventLoopDelay,
  PerformanceObserver,
  constants,
  type RecordableHistogram,
} from 'node:perf_hooks';

/** What a server process's event loop went through since the previous take(): the usual suspects of a latency tail. */
export interface TailStats {
  /** How late the event loop ran a 1 ms timer (p99 and worst): anything that held the loop, GC pauses included. */
  eventLoopDelayP99Ms: number;
  eventLoopDelayMaxMs: number;
  /** Stop-the-world GC pauses on the main thread, by V8's kind (minor = scavenge, major = mark-compact). */
  gc: { minor: PauseStats; major: PauseStats; other: PauseStats };
  /**
   * Time in the server (p99 and worst), once timeInServer() was called: from a request's headers parsed to its
   * answer written to the socket. A latency tail well above it was spent waiting: in the socket for the event loop,
   * i.e. in a queue.
   */
  inServer?: { p99Ms: number; maxMs: number };
}

export interface PauseStats {
  count: number;
  totalMs: number;
  maxMs: number;
}

/**
 * Runs in a server process under test: the event loop's delay (perf_hooks' histogram at 1 ms resolution) and each
 * GC pause (the `gc` performance entries V8 reports), so the bench can tell a latency tail's cause apart: a long
 * loop delay with GC pauses to match is GC; without them, the request work or a flush held the loop.
 */
export function createTailMonitor(): { take(): TailStats; timeInServer(): void } {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let inServer: RecordableHistogram | undefined;
  let pauses = emptyPauses();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      const bucket =
        kind === constants.NODE_PERFORMANCE_GC_MINOR
          ? pauses.minor
          : kind === constants.NODE_PERFORMANCE_GC_MAJOR
            ? pauses.major
            : pauses.other;
      bucket.count++;
      bucket.totalMs += entry.duration;
      bucket.maxMs = Math.max(bucket.maxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    take() {
      const stats: TailStats = {
        // The histogram is in nanoseconds, and reports the delay beyond the 1 ms resolution.
        eventLoopDelayP99Ms: delay.count > 0 ? delay.percentile(99) / 1e6 : 0,
        eventLoopDelayMaxMs: delay.count > 0 ? delay.max / 1e6 : 0,
        gc: pauses,
        ...(inServer && inServer.count > 0
          ? { inServer: { p99Ms: inServer.percentile(99) / 1e6, maxMs: inServer.max / 1e6 } }
          : {}),
      };
      delay.reset();
      inServer?.reset();
      pauses = emptyPauses();
      return stats;
    },
    // Asked for by the latency phase only: the throughput phase's per-core figures carry no per-request hooks.
    timeInServer() {
      inServer ??= measureTimeInServer();
    },
  };
}

/**
 * Node's own http diagnostics channels, so every server (bare or crdgate) is timed by the same code. A WeakMap rather
 * than a property on the response, which would change the shape of objects the server's code handles.
 */
function measureTimeInServer(): RecordableHistogram {
  const histogram = createHistogram();
  const startedAt = new WeakMap<object, number>();
  subscribe('http.server.request.start', function onRequestStart(message) {
    startedAt.set((message as { response: object }).response, performance.now());
  });
  subscribe('http.server.response.finish', function onResponseFinish(message) {
    const started = startedAt.get((message as { response: object }).response);
    // In nanoseconds: the histogram takes integers of at least 1.
    if (started !== undefined) histogram.record(Math.max(1, Math.round((performance.now() - started) * 1e6)));
  });
  return histogram;
}

function emptyPauses(): TailStats['gc'] {
  return {
    minor: { count: 0, totalMs: 0, maxMs: 0 },
    major: { count: 0, totalMs: 0, maxMs: 0 },
    other: { count: 0, totalMs: 0, maxMs: 0 },
  };
}
