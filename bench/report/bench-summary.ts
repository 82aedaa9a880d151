import type { ConversionResult } from '../conversion-throughput.ts';
import type { LatencyResult } from '../open-loop-latency.ts';
import type { StartupResult } from '../startup-to-ready.ts';
import type { ThroughputResult } from '../closed-loop-throughput.ts';
import type { CpuPinning } from '../support/cpu-pinning.ts';
import type { TailStats } from '../tail-monitor.ts';

/** bare: node:https, the floor for a Node webhook. peer: the controller-runtime webhook a user would write instead. */
export type ServerName = 'bare' | 'crdgate' | 'peer';

export interface ThroughputRow extends ThroughputResult {
  payload: string;
  payloadBytes: number;
  server: ServerName;
  path: string;
  /** crdgate and peer rows: against the bare row of the same payload. */
  ratioPerCore?: number;
  ratioRaw?: number;
  /** crdgate /validate rows: crdgate's req/CPU-s over the peer's, same payload (the peer serves /validate only). */
  ratioPerCoreToPeer?: number;
}

/** One server's open-loop run, with what its event loop went through meanwhile (Node servers). */
export interface MeasuredLatency extends LatencyResult {
  tail?: TailStats;
  /** The server process's CPU time over the window, per request sent. */
  cpuMicrosPerRequest: number;
}

/** The bare server made as busy per request as crdgate: it did `busyMicros` of work per request (serve-bare.ts). */
export interface BusyBareLatency extends MeasuredLatency {
  busyMicros: number;
}

/** crdgate at half its own saturation rate on one path, and the bare server at the same rate: the best round of each. */
export interface LatencyRow {
  payload: string;
  path: string;
  ratePerSecond: number;
  bare: MeasuredLatency;
  crdgate: MeasuredLatency;
  /** crdgate's p99 over the bare server's. */
  p99Ratio: number;
  /** The control, at the same rate: near 1x, crdgate's tail is its CPU per request; well above, its own. */
  busyBare: BusyBareLatency;
  p99RatioToBusyBare: number;
  /** The goal applied to the control: the busy bare server's p99 over the bare server's. */
  p99RatioBusyBareToBare: number;
  /** A second bare server process, measured in the same rounds: two identical servers' p99 ratio is the noise floor. */
  bareTwin: MeasuredLatency;
  p99RatioTwinToBare: number;
}

export interface ConversionRow {
  review: string;
  objects: number;
  result: ConversionResult;
}

/** Everything one run measured: the table is rendered from it and `--json` prints it as is. */
export interface BenchSummary {
  node: string;
  cpus: number;
  startedAt: string;
  throughput: ThroughputRow[];
  /** The controller-runtime peer's binary, or why it could not be built (then it has no rows). */
  peer: { binary: string } | { unavailable: string };
  pinning: CpuPinning;
  latency: LatencyRow[];
  conversion: ConversionRow[];
  /** Which crdgate the load phases ran: the compiled build (as in the image) or src/*.ts through type stripping. */
  crdgateBuild: 'compiled' | 'source';
  startup: { compiled: StartupResult; source: StartupResult; childReadyAfterMs: number };
  /** crdgate's RSS: after start, and the peak seen after each phase (throughput: at the end of each window). */
  rssMiB: {
    bareIdle: number;
    bareThroughput: number;
    idle: number;
    throughput: number;
    throughputHeapTotal: number;
    latency: number;
    conversion: number;
  };
}
