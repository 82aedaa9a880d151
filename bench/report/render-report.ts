import type { BenchSummary, MeasuredLatency, ThroughputRow } from './bench-summary.ts';
import type { TailStats } from '../tail-monitor.ts';
import { goals } from '../goals.ts';
import { textTable } from './text-table.ts';

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const thousands = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const percent = (share: number) => `${fixed(share * 100, 0)}%`;
// An unanswered request counts as infinitely slow: a percentile that lands on one has no finite value.
const latency = (ms: number, digits: number) => (ms === Number.POSITIVE_INFINITY ? 'unanswered' : fixed(ms, digits));
const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');

const inServer = (tail: TailStats | undefined) =>
  tail?.inServer ? `${fixed(tail.inServer.p99Ms, 2)}/${fixed(tail.inServer.maxMs, 1)}` : 'n/a';
const loopDelay = (tail: TailStats | undefined) =>
  tail ? `${fixed(tail.eventLoopDelayP99Ms, 1)}/${fixed(tail.eventLoopDelayMaxMs, 1)}` : 'n/a';
// GC work per request (every pause of the window over every request sent in it), then the longest pause of each kind.
const gcWork = (measured: MeasuredLatency) => {
  const tail = measured.tail;
  if (!tail) return 'n/a';
  const perRequestUs = ((tail.gc.minor.totalMs + tail.gc.major.totalMs) * 1000) / measured.sent;
  return `${fixed(perRequestUs, 1)} (${fixed(tail.gc.minor.maxMs, 1)}/${fixed(tail.gc.major.maxMs, 1)})`;
};

// How much of its core a server was busy in an open-loop round: the utilization its queue behaves by.
const coreShare = (measured: MeasuredLatency, ratePerSecond: number) =>
  (measured.cpuMicrosPerRequest * ratePerSecond) / 1e6;

function throughputGoalMet(row: ThroughputRow): boolean {
  const againstBare = row.ratioPerCore !== undefined && row.ratioPerCore >= goals.throughputRatioToBare;
  // The peer serves /validate only; without Go there is no peer row, and that goal is not checked.
  const againstPeer = row.ratioPerCoreToPeer === undefined || row.ratioPerCoreToPeer >= goals.throughputRatioToPeer;
  return againstBare && againstPeer && row.failures === 0;
}

/** The human-readable report: one table per goal, each row saying whether its goal is met. */
export function renderReport(summary: BenchSummary): string {
  const { startup } = summary;
  const peakUnderLoad = Math.max(summary.rssMiB.throughput, summary.rssMiB.latency);
  const sections = [
    `crdgate benchmarks: node ${summary.node}, ${summary.cpus} CPUs, ${summary.startedAt}, crdgate ${summary.crdgateBuild === 'compiled' ? 'compiled (as in the image)' : 'from src/*.ts'}`,
    'Each server is one process (bare, crdgate: one Node event loop; peer: Go), so "per core" means per process; req/CPU-s divides by the',
    "server process's own CPU time (all its threads), so the load generator's speed cannot flatter or hide it.",
    'serverCore' in summary.pinning
      ? `Servers pinned to CPU ${summary.pinning.serverCore} (taskset -a), the load generator to CPU ${summary.pinning.clientCore}.`
      : `Servers NOT pinned: ${summary.pinning.unpinned}.`,
    'binary' in summary.peer
      ? 'peer: the controller-runtime webhook a user would write instead (bench/peer/: Go, webhook.Server + admission.Handler, GOMAXPROCS=1 when pinned).'
      : `peer: NOT MEASURED, ${summary.peer.unavailable}`,
    '',
    `1. Admission throughput (closed loop, keep-alive, TLS 1.3; goals per core: crdgate >= ${goals.throughputRatioToBare}x bare, >= ${goals.throughputRatioToPeer}x the peer on /validate)`,
    textTable(
      [
        'payload',
        'bytes',
        'server',
        'path',
        'req/s',
        'srv CPU',
        'req/CPU-s',
        'p50 ms',
        'p99 ms',
        'client CPU',
        'other CPU',
        'ratio/core',
        'ratio raw',
        'vs peer/core',
        'fails',
        'goal',
      ],
      summary.throughput.map((row) => [
        row.payload,
        String(row.payloadBytes),
        row.server,
        row.path,
        thousands(row.requestsPerSecond),
        percent(row.serverCpuShare),
        thousands(row.requestsPerServerCpuSecond),
        fixed(row.p50Ms, 2),
        fixed(row.p99Ms, 2),
        percent(row.clientCpuShare),
        percent(row.otherCpuShare),
        row.ratioPerCore !== undefined ? `${fixed(row.ratioPerCore, 2)}x` : '',
        row.ratioRaw !== undefined ? `${fixed(row.ratioRaw, 2)}x` : '',
        row.ratioPerCoreToPeer !== undefined ? `${fixed(row.ratioPerCoreToPeer, 2)}x` : '',
        String(row.failures),
        row.server === 'crdgate' ? verdict(throughputGoalMet(row)) : `(${row.server === 'bare' ? 'baseline' : 'peer'})`,
      ]),
    ),
    '',
    `2. Latency (open loop, from scheduled send time, servers pinned as above; goal: crdgate p99 <= ${goals.latencyP99RatioToBare}x the bare server's at the same rate, half of crdgate's saturation; best of each's rounds)`,
    textTable(
      [
        'payload',
        'path',
        'rate/s',
        'bare p50',
        'bare p99',
        'crdgate p50',
        'crdgate p90',
        'crdgate p99',
        'max',
        'p99 ratio',
        'A/A: bare twin / bare p99',
        'send lag p99',
        'loop delay p99/max: crdgate, bare',
        'GC µs/req (max minor/major): crdgate, bare',
        'unanswered',
        'goal',
      ],
      summary.latency.map((row) => [
        row.payload,
        row.path,
        thousands(row.ratePerSecond),
        latency(row.bare.p50Ms, 2),
        latency(row.bare.p99Ms, 2),
        latency(row.crdgate.p50Ms, 2),
        latency(row.crdgate.p90Ms, 2),
        latency(row.crdgate.p99Ms, 2),
        latency(row.crdgate.maxMs, 1),
        `${fixed(row.p99Ratio, 2)}x`,
        `${fixed(row.p99RatioTwinToBare, 2)}x`,
        fixed(row.crdgate.sendLagP99Ms, 2),
        `${loopDelay(row.crdgate.tail)}, ${loopDelay(row.bare.tail)}`,
        `${gcWork(row.crdgate)}, ${gcWork(row.bare)}`,
        `${row.crdgate.unanswered} / ${row.bare.unanswered}`,
        verdict(
          row.p99Ratio <= goals.latencyP99RatioToBare && row.crdgate.unanswered === 0 && row.crdgate.failures === 0,
        ),
      ]),
    ),
    "(times in ms; A/A: a second bare server process in the same rounds, the ratio two identical servers show here, i.e. the noise in any p99 ratio; send lag: how late the load generator itself sent, latencies below it mean nothing; loop delay and GC: each server's own, in its kept round; GC µs/req is its pauses' total over the requests sent)",
    '',
    "2b. Where the tail comes from, tested: the bare server made as busy per request as crdgate (calibrated JSON parsing, work of crdgate's kind, for the CPU crdgate spends beyond it), same rate, same rounds",
    textTable(
      [
        'payload',
        'path',
        'rate/s',
        'CPU µs/req: crdgate, bare, busy bare',
        'busy share of a core: crdgate, bare, busy bare',
        'work µs',
        'p99: crdgate, bare, busy bare',
        'in the server p99/max: crdgate, bare, busy bare',
        'crdgate p99 / busy bare p99',
        'the goal on the control: busy bare p99 / bare p99',
        'GC µs/req: crdgate, busy bare',
      ],
      summary.latency.map((row) => [
        row.payload,
        row.path,
        thousands(row.ratePerSecond),
        [row.crdgate, row.bare, row.busyBare].map((run) => fixed(run.cpuMicrosPerRequest, 0)).join(', '),
        [row.crdgate, row.bare, row.busyBare].map((run) => percent(coreShare(run, row.ratePerSecond))).join(', '),
        fixed(row.busyBare.busyMicros, 1),
        [row.crdgate, row.bare, row.busyBare].map((run) => latency(run.p99Ms, 2)).join(', '),
        [row.crdgate, row.bare, row.busyBare].map((run) => inServer(run.tail)).join(', '),
        `${fixed(row.p99RatioToBusyBare, 2)}x`,
        `${fixed(row.p99RatioBusyBareToBare, 2)}x`,
        `${gcWork(row.crdgate)}, ${gcWork(row.busyBare)}`,
      ]),
    ),
    "(near 1x: crdgate's tail is what its CPU per request costs on this machine, a busier server draining the queue a stall leaves more slowly; well above 1x: a cause of crdgate's own, such as GC of its larger heap; busy share: CPU per request times the rate, in the kept round; in the server: from headers parsed to answer written, so a p99 far above it was time spent queued; the goal on the control: the 1.5x goal applied to the busy bare server, which runs none of crdgate's code. The rate is half of crdgate's closed-loop saturation, but an open loop costs more CPU per request than a closed one, so crdgate runs at more than half a core)",
    '',
    `3. Conversion (one review at a time on one connection; goal: <= ${goals.conversionReviewMs} ms per 500-object review)`,
    textTable(
      ['review', 'objects', 'request B', 'response B', 'median ms', 'max ms', 'objects/s', 'goal'],
      summary.conversion.map(({ review, objects, result }) =>
        result.ok
          ? [
              review,
              String(objects),
              String(result.requestBytes),
              String(result.responseBytes),
              fixed(result.medianMs, 1),
              fixed(result.maxMs, 1),
              thousands(result.objectsPerSecond),
              verdict(result.maxMs <= goals.conversionReviewMs),
            ]
          : [review, String(objects), '', '', '', '', '', `FAILED: ${result.reason}`],
      ),
    ),
    '',
    `4. Start-up and memory (crdgate ${summary.crdgateBuild})`,
    textTable(
      ['measure', 'value', 'goal', ''],
      [
        [
          'spawn compiled `node dist/cli.js serve` -> first 200 on /readyz (median)',
          `${fixed(startup.compiled.medianMs, 0)} ms`,
          `< ${goals.startupMs} ms`,
          verdict(startup.compiled.maxMs < goals.startupMs),
        ],
        [`  same, slowest of ${startup.compiled.runsMs.length} runs`, `${fixed(startup.compiled.maxMs, 0)} ms`, '', ''],
        [
          '  `node src/cli.ts serve` (type stripping, as `npm start`), median',
          `${fixed(startup.source.medianMs, 0)} ms`,
          '',
          '',
        ],
        ['  process start -> listening, by the load-test child', `${fixed(startup.childReadyAfterMs, 0)} ms`, '', ''],
        ['crdgate RSS after start, idle', `${fixed(summary.rssMiB.idle, 1)} MiB`, '', ''],
        [
          '  the bare server for reference: idle / under load',
          `${fixed(summary.rssMiB.bareIdle, 1)} / ${fixed(summary.rssMiB.bareThroughput, 1)} MiB`,
          '',
          '',
        ],
        [
          'crdgate RSS under admission load (peak, closed and open loop), Deployment heap flags',
          `${fixed(peakUnderLoad, 1)} MiB`,
          `<= ${goals.rssMiB} MiB (request)`,
          verdict(peakUnderLoad <= goals.rssMiB),
        ],
        ['    V8 heap reserved then (heapTotal, peak)', `${fixed(summary.rssMiB.throughputHeapTotal, 1)} MiB`, '', ''],
        ['  of which after the open-loop latency runs', `${fixed(summary.rssMiB.latency, 1)} MiB`, '', ''],
        ['  peak after the 1 MB conversion reviews', `${fixed(summary.rssMiB.conversion, 1)} MiB`, '', ''],
      ],
    ),
  ];
  return `${sections.join('\n')}\n`;
}
