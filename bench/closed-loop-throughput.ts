import { post, type Target } from './support/https-client.ts';
import { busyCores, readMachineCpu } from './support/machine-cpu.ts';
import { percentile } from './support/percentile.ts';
import type { ProcessSample, ServerProcess } from './server-process.ts';

export interface ThroughputOptions {
  server: ServerProcess;
  target: Target;
  path: string;
  body: Buffer;
  /** Requests in flight at any time (the agent spreads them over its sockets). */
  concurrency: number;
  warmupMs: number;
  measureMs: number;
  /** A second bound besides time, so a pathological fast path cannot loop unboundedly either. */
  maxRequests: number;
}

export interface ThroughputResult {
  requestsPerSecond: number;
  /** Server CPU time over wall time in the window: 1.0 = one core fully busy. */
  serverCpuShare: number;
  /** Requests per second of server CPU: throughput per core, whether or not the load saturated the server. */
  requestsPerServerCpuSecond: number;
  /** The load generator's own CPU share: near 1.0 means the client, not the server, may have set the pace. */
  clientCpuShare: number;
  /** CPU the rest of the machine used meanwhile, in cores: well above 0 means the run was disturbed. */
  otherCpuShare: number;
  /** The server's resident memory at the end of the window. */
  serverRssBytes: number;
  /** V8's reserved heap then: most of any RSS growth under load, since V8 grows its heap lazily when memory is free. */
  serverHeapTotalBytes: number;
  completedInWindow: number;
  /** From send to the whole answer read, of the requests answered in the window. Under a closed loop these include
   * queueing at the server, so they compare servers at the same concurrency, not at the same rate. */
  p50Ms: number;
  p99Ms: number;
  failures: number;
  firstFailure?: string;
  tlsProtocol: string | null;
}

/** Closed loop: each of `concurrency` workers sends its next request as soon as its previous one is answered. */
export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputResult> {
  const started = performance.now();
  const windowStart = started + options.warmupMs;
  const windowEnd = windowStart + options.measureMs;
  let sent = 0;
  let completedInWindow = 0;
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let tlsProtocol: string | null = null;

  const serverAtStart = deferredSample(options.server, windowStart);
  const clientAtStart = deferred(windowStart, () => process.cpuUsage());
  const machineAtStart = deferred(windowStart, readMachineCpu);
  const serverAtEnd = deferredSample(options.server, windowEnd);
  const clientAtEnd = deferred(windowEnd, () => process.cpuUsage());
  const machineAtEnd = deferred(windowEnd, readMachineCpu);

  async function worker(): Promise<void> {
    while (performance.now() < windowEnd && sent < options.maxRequests) {
      sent++;
      try {
        const sentAt = performance.now();
        const answer = await post(options.target, options.path, options.body);
        if (answer.status !== 200)
          throw new Error(`HTTP ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
        tlsProtocol = answer.tlsProtocol;
        const now = performance.now();
        if (now >= windowStart && now < windowEnd) {
          completedInWindow++;
          latenciesMs.push(now - sentAt);
        }
      } catch (error) {
        failures++;
        firstFailure ??= (error as Error).message;
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker));

  const [serverStart, serverEnd, clientStart, clientEnd, machineStart, machineEnd] = await Promise.all([
    serverAtStart,
    serverAtEnd,
    clientAtStart,
    clientAtEnd,
    machineAtStart,
    machineAtEnd,
  ]);
  const serverCpuShare = (serverEnd.cpuMicros - serverStart.cpuMicros) / 1000 / (serverEnd.atMs - serverStart.atMs);
  const clientCpuMicros =
    clientEnd.value.user + clientEnd.value.system - clientStart.value.user - clientStart.value.system;
  const clientCpuShare = clientCpuMicros / 1000 / (clientEnd.atMs - clientStart.atMs);
  const requestsPerSecond = completedInWindow / (options.measureMs / 1000);
  const sortedLatencies = Float64Array.from(latenciesMs).sort();
  return {
    requestsPerSecond,
    serverCpuShare,
    requestsPerServerCpuSecond: requestsPerSecond / serverCpuShare,
    clientCpuShare,
    otherCpuShare: Math.max(0, busyCores(machineStart.value, machineEnd.value) - serverCpuShare - clientCpuShare),
    serverRssBytes: serverEnd.rssBytes,
    serverHeapTotalBytes: serverEnd.heapTotalBytes,
    completedInWindow,
    p50Ms: percentile(sortedLatencies, 50),
    p99Ms: percentile(sortedLatencies, 99),
    failures,
    ...(firstFailure !== undefined ? { firstFailure } : {}),
    tlsProtocol,
  };
}

function deferred<T>(atMs: number, take: () => T): Promise<{ value: T; atMs: number }> {
  return new Promise((resolve) =>
    setTimeout(() => resolve({ value: take(), atMs: performance.now() }), Math.max(0, atMs - performance.now())),
  );
}

function deferredSample(server: ServerProcess, atMs: number): Promise<ProcessSample> {
  return new Promise((resolve, reject) =>
    setTimeout(() => void server.sample().then(resolve, reject), Math.max(0, atMs - performance.now())),
  );
}
