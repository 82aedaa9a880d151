import type { BenchSummary } from './bench-summary.ts';
import { goals } from './goals.ts';
import { textTable } from './text-table.ts';

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const thousands = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const percent = (share: number) => `${fixed(share * 100, 0)}%`;
// An unanswered request counts as infinitely slow: a percentile that lands on one has no finite value.
const latency = (ms: number, digits: number) => (ms === Number.POSITIVE_INFINITY ? 'unanswered' : fixed(ms, digits));
const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');

/** The human-readable report: one table per goal, each row saying whether its goal is met. */
export function renderReport(summary: BenchSummary): string {
  const { startup } = summary;
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
    `1. Admission throughput (closed loop, keep-alive, TLS 1.3; goal: crdgate/bare per core >= ${goals.throughputRatio}x)`,
    textTable(
      ['payload', 'bytes', 'server', 'path', 'req/s', 'srv CPU', 'req/CPU-s', 'p50 ms', 'p99 ms', 'client CPU', 'other CPU', 'ratio/core', 'ratio raw', 'vs peer/core', 'fails', 'goal'],
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
        row.server === 'crdgate' ? verdict(row.ratioPerCore !== undefined && row.ratioPerCore >= goals.throughputRatio && row.failures === 0) : `(${row.server === 'bare' ? 'baseline' : 'peer'})`,
      ]),
    ),
    '',
    `2. Latency (open loop, from scheduled send time; goal: crdgate p99 <= ${goals.latencyP99Ms} ms at half the bare saturation rate)`,
    textTable(
      ['payload', 'server', 'path', 'rate basis', 'rate/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'send lag p99', 'answered', 'unanswered', 'goal'],
      summary.latency.map((row) => [
        row.payload,
        row.server,
        row.path,
        row.rateBasis,
        thousands(row.ratePerSecond),
        latency(row.p50Ms, 2),
        latency(row.p90Ms, 2),
        latency(row.p99Ms, 2),
        latency(row.maxMs, 1),
        fixed(row.sendLagP99Ms, 2),
        String(row.recorded),
        String(row.unanswered),
        row.server === 'bare' ? '(reference)' : row.rateBasis === 'half of own' ? '(context)' : verdict(row.p99Ms <= goals.latencyP99Ms),
      ]),
    ),
    '',
    `3. Conversion (one review at a time on one connection; goal: <= ${goals.conversionReviewMs} ms per 500-object review)`,
    textTable(
      ['review', 'objects', 'request B', 'response B', 'median ms', 'max ms', 'objects/s', 'goal'],
      summary.conversion.map(({ review, objects, result }) =>
        result.ok
          ? [review, String(objects), String(result.requestBytes), String(result.responseBytes), fixed(result.medianMs, 1), fixed(result.maxMs, 1), thousands(result.objectsPerSecond), verdict(result.maxMs <= goals.conversionReviewMs)]
          : [review, String(objects), '', '', '', '', '', `FAILED: ${result.reason}`],
      ),
    ),
    '',
    `4. Start-up and memory (crdgate ${summary.crdgateBuild})`,
    textTable(
      ['measure', 'value', 'goal', ''],
      [
        ['spawn compiled `node dist/cli.js serve` -> first 200 on /readyz (median)', `${fixed(startup.compiled.medianMs, 0)} ms`, `< ${goals.startupMs} ms`, verdict(startup.compiled.maxMs < goals.startupMs)],
        [`  same, slowest of ${startup.compiled.runsMs.length} runs`, `${fixed(startup.compiled.maxMs, 0)} ms`, '', ''],
        ['  `node src/cli.ts serve` (type stripping, as `npm start`), median', `${fixed(startup.source.medianMs, 0)} ms`, '', ''],
        ['  process start -> listening, by the load-test child', `${fixed(startup.childReadyAfterMs, 0)} ms`, '', ''],
        ['crdgate RSS after start, idle', `${fixed(summary.rssMiB.idle, 1)} MiB`, '', ''],
        ['  the bare server for reference: idle / under load', `${fixed(summary.rssMiB.bareIdle, 1)} / ${fixed(summary.rssMiB.bareThroughput, 1)} MiB`, '', ''],
        ['crdgate RSS under admission load (peak, closed loop)', `${fixed(summary.rssMiB.throughput, 1)} MiB`, `< ${goals.rssMiB} MiB`, verdict(summary.rssMiB.throughput < goals.rssMiB)],
        ['    V8 heap reserved then (heapTotal, peak)', `${fixed(summary.rssMiB.throughputHeapTotal, 1)} MiB`, '', ''],
        ['  peak after the open-loop latency runs', `${fixed(summary.rssMiB.latency, 1)} MiB`, '', ''],
        ['  peak after the 1 MB conversion reviews', `${fixed(summary.rssMiB.conversion, 1)} MiB`, '', ''],
      ],
    ),
  ];
  return `${sections.join('\n')}\n`;
}
