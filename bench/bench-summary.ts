import type { ConversionResult } from './conversion-throughput.ts';
import type { LatencyResult } from './open-loop-latency.ts';
import type { StartupResult } from './startup-to-ready.ts';
import type { ThroughputResult } from './closed-loop-throughput.ts';

export type ServerName = 'bare' | 'crdgate';

export interface ThroughputRow extends ThroughputResult {
  payload: string;
  payloadBytes: number;
  server: ServerName;
  path: string;
  /** crdgate rows only: against the bare row of the same payload. */
  ratioPerCore?: number;
  ratioRaw?: number;
}

export interface LatencyRow extends LatencyResult {
  payload: string;
  server: ServerName;
  path: string;
  /** The goal's rate (half the bare server's saturation) or, for context, half the server's own. */
  rateBasis: 'half of bare' | 'half of own';
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
  latency: LatencyRow[];
  conversion: ConversionRow[];
  /** Which crdgate the load phases ran: the compiled build (as in the image) or src/*.ts through type stripping. */
  crdgateBuild: 'compiled' | 'source';
  startup: { compiled: StartupResult; source: StartupResult; childReadyAfterMs: number };
  /** crdgate's RSS: after start, and the peak seen after each phase (throughput: at the end of each window). */
  rssMiB: { bareIdle: number; bareThroughput: number; idle: number; throughput: number; throughputHeapTotal: number; latency: number; conversion: number };
}
