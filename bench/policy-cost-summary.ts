import { percentile } from './support/percentile.ts';
import { sumSamples, type MetricSample } from './support/prometheus-text.ts';

// The pure half of the policy-cost benchmark (policy-cost.ts): what one timed window measured, and how windows of
// alternating rounds add up to the figures the report prints.

export const policyModes = ['without', 'with'] as const;
/** Whether the rendered ValidatingAdmissionPolicy was bound (in effect) during a window. */
export type PolicyMode = (typeof policyModes)[number];

export type WindowPhase = 'latency' | 'throughput';

/**
 * Why the API server refused an update that should have been allowed. Under failurePolicy Fail an expression
 * over its cost limit, a binding out of its cost budget, or an expression that failed to evaluate refuses the write
 * (422), so a broken or too costly policy shows up here, not as a faster figure.
 */
export type RefusalKind = 'out-of-budget' | 'evaluation-error' | 'policy-denied' | 'other';

export function classifyRefusal(message: string): RefusalKind {
  // The texts of k8s.io/apiserver's plugin/cel (activation.go, validator.go) and cel-go's cost limit, see bench/README.md.
  if (/running out of cost budget|cost limit exceeded|out of budget/i.test(message)) return 'out-of-budget';
  if (
    /resulted in error|failed messageExpression|composited variable .* fails to evaluate|failed to convert object version/.test(
      message,
    )
  )
    return 'evaluation-error';
  if (/ValidatingAdmissionPolicy '[^']*'( with binding '[^']*')? denied request/.test(message)) return 'policy-denied';
  return 'other';
}

export interface Refusal {
  kind: RefusalKind;
  status: number;
  message: string;
}

/** Counters read from kube-apiserver's /metrics; a window's figures are the difference of two readings. */
export interface ServerCounters {
  /** Time in the ValidatingAdmissionPolicy admission plugin, over every UPDATE the API server admitted. */
  vapSeconds: number;
  vapUpdates: number;
  /** The API server's own duration of PUTs on geodatabases (the main resource, not /status). */
  putSeconds: number;
  puts: number;
  /** kube-apiserver's process CPU time. */
  cpuSeconds: number;
  /** apiserver_validating_admission_policy_check_total: decisions the policy plugin counted (denials and errors). */
  policyChecks: number;
}

export function readServerCounters(
  samples: readonly MetricSample[],
  resource: { group: string; plural: string },
): ServerCounters {
  const vap = { name: 'ValidatingAdmissionPolicy', operation: 'UPDATE', type: 'validate' };
  const put = { verb: 'PUT', group: resource.group, resource: resource.plural, subresource: '' };
  return {
    vapSeconds: sumSamples(samples, 'apiserver_admission_controller_admission_duration_seconds_sum', vap),
    vapUpdates: sumSamples(samples, 'apiserver_admission_controller_admission_duration_seconds_count', vap),
    putSeconds: sumSamples(samples, 'apiserver_request_duration_seconds_sum', put),
    puts: sumSamples(samples, 'apiserver_request_duration_seconds_count', put),
    cpuSeconds: sumSamples(samples, 'process_cpu_seconds_total'),
    policyChecks: sumSamples(samples, 'apiserver_validating_admission_policy_check_total'),
  };
}

const counterKeys = ['vapSeconds', 'vapUpdates', 'putSeconds', 'puts', 'cpuSeconds', 'policyChecks'] as const;

export function counterDifference(after: ServerCounters, before: ServerCounters): ServerCounters {
  return Object.fromEntries(counterKeys.map((key) => [key, after[key] - before[key]])) as unknown as ServerCounters;
}

function counterTotal(all: readonly ServerCounters[]): ServerCounters {
  return Object.fromEntries(
    counterKeys.map((key) => [key, all.reduce((sum, counters) => sum + counters[key], 0)]),
  ) as unknown as ServerCounters;
}

/** One timed window: one variant, one phase, in one round with the policy bound or not. */
export interface MeasuredWindow {
  round: number;
  mode: PolicyMode;
  variant: string;
  phase: WindowPhase;
  concurrency: number;
  /** Send to the whole answer, of the updates the API server allowed in the window. */
  latenciesMs: number[];
  seconds: number;
  server: ServerCounters;
  /** Cores the whole machine kept busy during the window (API server, etcd, the load generator and anything else). */
  machineBusyCores: number;
  refusals: Refusal[];
}

export interface PhaseFigures {
  /** Updates the API server allowed, over every round of this mode. */
  updates: number;
  medianMs: number;
  p99Ms: number;
  updatesPerSecond: number;
  /** Mean time in the ValidatingAdmissionPolicy plugin per UPDATE, as the API server measured it. */
  vapMicrosPerUpdate: number;
  /** Mean duration of a PUT as the API server measured it (receipt to response written). */
  serverPutMeanMs: number;
  /** kube-apiserver's CPU time per update sent (its background work included). */
  serverCpuMicrosPerUpdate: number;
  /** UPDATEs the admission plugin counted beyond ours: the API server's own (leases), which dilute its mean a little. */
  foreignUpdates: number;
  machineBusyCores: number;
  /** Each round's median, in order: the spread between rounds of the same configuration. */
  roundMediansMs: number[];
}

export interface PhaseComparison {
  without: PhaseFigures;
  with: PhaseFigures;
  /** with / without: the policy's cost relative to the whole update. */
  medianRatio: number;
  p99Ratio: number;
  /** with / without; below 1 when the policy costs throughput. */
  throughputRatio: number;
  /** The lowest and highest with/without ratio of medians of rounds paired in order (round 1 without with round 1 with, ...). */
  pairedMedianRatioRange: [number, number];
  /** What the policy adds per update inside the admission plugin, by the API server's own clock. */
  vapMicrosAdded: number;
  serverCpuMicrosAdded: number;
}

export interface VariantComparison {
  variant: string;
  latency: PhaseComparison;
  throughput: PhaseComparison;
}

export interface RefusalCounts {
  outOfBudget: number;
  evaluationError: number;
  policyDenied: number;
  other: number;
  /** Up to five refusals' messages, to say what happened. */
  examples: string[];
}

export function summarizeWindows(windows: readonly MeasuredWindow[]): VariantComparison[] {
  const variants = [...new Set(windows.map((window) => window.variant))];
  return variants.map((variant) => {
    const compare = (phase: WindowPhase) =>
      comparePhase(windows.filter((window) => window.variant === variant && window.phase === phase));
    return { variant, latency: compare('latency'), throughput: compare('throughput') };
  });
}

function comparePhase(windows: readonly MeasuredWindow[]): PhaseComparison {
  const ofMode = (mode: PolicyMode) =>
    windows.filter((window) => window.mode === mode).sort((a, b) => a.round - b.round);
  const without = phaseFigures(ofMode('without'));
  const withPolicy = phaseFigures(ofMode('with'));
  const pairs = Math.min(without.roundMediansMs.length, withPolicy.roundMediansMs.length);
  const pairedRatios = Array.from(
    { length: pairs },
    (_, i) => withPolicy.roundMediansMs[i]! / without.roundMediansMs[i]!,
  );
  return {
    without,
    with: withPolicy,
    medianRatio: withPolicy.medianMs / without.medianMs,
    p99Ratio: withPolicy.p99Ms / without.p99Ms,
    throughputRatio: withPolicy.updatesPerSecond / without.updatesPerSecond,
    pairedMedianRatioRange:
      pairs === 0 ? [Number.NaN, Number.NaN] : [Math.min(...pairedRatios), Math.max(...pairedRatios)],
    vapMicrosAdded: withPolicy.vapMicrosPerUpdate - without.vapMicrosPerUpdate,
    serverCpuMicrosAdded: withPolicy.serverCpuMicrosPerUpdate - without.serverCpuMicrosPerUpdate,
  };
}

function phaseFigures(windows: readonly MeasuredWindow[]): PhaseFigures {
  const sorted = (values: readonly number[]) => Float64Array.from(values).sort();
  const all = sorted(windows.flatMap((window) => window.latenciesMs));
  const seconds = windows.reduce((sum, window) => sum + window.seconds, 0);
  const server = counterTotal(windows.map((window) => window.server));
  const updates = all.length;
  const sent = updates + windows.reduce((sum, window) => sum + window.refusals.length, 0);
  return {
    updates,
    medianMs: percentile(all, 50),
    p99Ms: percentile(all, 99),
    updatesPerSecond: updates / seconds,
    vapMicrosPerUpdate: (server.vapSeconds / server.vapUpdates) * 1e6,
    serverPutMeanMs: (server.putSeconds / server.puts) * 1e3,
    serverCpuMicrosPerUpdate: (server.cpuSeconds / sent) * 1e6,
    foreignUpdates: server.vapUpdates - sent,
    machineBusyCores: windows.reduce((sum, window) => sum + window.machineBusyCores * window.seconds, 0) / seconds,
    roundMediansMs: windows.map((window) => percentile(sorted(window.latenciesMs), 50)),
  };
}

export function countRefusals(windows: readonly MeasuredWindow[]): RefusalCounts {
  const refusals = windows.flatMap((window) => window.refusals);
  const count = (kind: RefusalKind) => refusals.filter((refusal) => refusal.kind === kind).length;
  return {
    outOfBudget: count('out-of-budget'),
    evaluationError: count('evaluation-error'),
    policyDenied: count('policy-denied'),
    other: count('other'),
    examples: [...new Set(refusals.map((refusal) => `${refusal.status}: ${refusal.message}`))].slice(0, 5),
  };
}
