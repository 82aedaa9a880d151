import type { PolicyCostResult } from '../policy-cost.ts';
import type { PhaseComparison, PhaseFigures, VariantComparison } from '../policy-cost-summary.ts';
import { textTable } from './text-table.ts';

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ratio = (value: number) => `${fixed(value, 2)}x`;
const range = ([low, high]: [number, number]) => (low === high ? ratio(low) : `${fixed(low, 2)}-${fixed(high, 2)}x`);
const msList = (values: number[]) => values.map((ms) => fixed(ms, 1)).join(', ');

function figureRow(variant: string, mode: string, figures: PhaseFigures, closedLoop: boolean): string[] {
  return [
    variant,
    mode,
    String(figures.updates),
    ...(closedLoop ? [fixed(figures.updatesPerSecond, 0)] : []),
    fixed(figures.medianMs, 2),
    fixed(figures.p99Ms, 2),
    msList(figures.roundMediansMs),
    fixed(figures.serverPutMeanMs, 2),
    fixed(figures.vapMicrosPerUpdate, 0),
    fixed(figures.serverCpuMicrosPerUpdate, 0),
    fixed(figures.machineBusyCores, 2),
  ];
}

function phaseTable(comparisons: VariantComparison[], phase: 'latency' | 'throughput'): string {
  const closedLoop = phase === 'throughput';
  const headers = [
    'variant',
    'policy',
    'updates',
    ...(closedLoop ? ['updates/s'] : []),
    'median ms',
    'p99 ms',
    'round medians ms',
    'server PUT ms',
    'VAP plugin µs',
    'apiserver CPU µs',
    'busy cores',
  ];
  const rows = comparisons.flatMap((comparison) => [
    figureRow(comparison.variant, 'unbound', comparison[phase].without, closedLoop),
    figureRow(comparison.variant, 'bound', comparison[phase].with, closedLoop),
  ]);
  return textTable(headers, rows);
}

function ratioLine(variant: string, comparison: PhaseComparison, closedLoop: boolean): string {
  return [
    `  ${variant}: median ${ratio(comparison.medianRatio)} (round pairs ${range(comparison.pairedMedianRatioRange)}), p99 ${ratio(comparison.p99Ratio)}`,
    ...(closedLoop ? [`updates/s ${ratio(comparison.throughputRatio)}`] : []),
    `the policy plugin +${fixed(comparison.vapMicrosAdded, 0)} µs and the API server's CPU +${fixed(comparison.serverCpuMicrosAdded, 0)} µs per update`,
  ].join('; ');
}

/** The --policy report: the rendered policy's admission cost, bound against unbound, in one run. */
export function renderPolicyCostReport(result: PolicyCostResult): string {
  const { plan, refusals } = result;
  const rounds = plan.roundsPerMode;
  const checks =
    result.policyChecks.length === 0
      ? 'none'
      : result.policyChecks.map(({ labels, value }) => `${value} ${JSON.stringify(labels)}`).join('; ');
  const effect = (values: number[]) =>
    values.length === 0 ? 'n/a' : `${fixed(Math.min(...values), 0)}-${fixed(Math.max(...values), 0)} ms`;
  const sizes = result.variants.map((variant) => `${variant.name}: ${variant.updateBytes} bytes`).join(', ');
  return [
    `Policy floor: the cost of the rendered ValidatingAdmissionPolicy on a GeoDatabase UPDATE (kube-apiserver ${result.kubeApiserverVersion} + etcd, no webhooks, ${result.cpus} CPUs, ${result.startedAt})`,
    `${result.policy.name}: ${result.policy.validations} validations, ${result.policy.variables} variables. The update: readReplicas 1 <-> 2 and the last cache's memory 1Gi <-> 2Gi`,
    `in phase Ready (scale + cache.resize, both allowed), a PUT of the object as last read (${sizes}).`,
    `${rounds * 2} rounds alternate unbound/bound (${rounds} each), the binding deleted or created between rounds and seen in effect by a dry-run cache major upgrade the policy denies.`,
    'server PUT ms, VAP plugin µs: means by the API server\'s own clock (apiserver_request_duration_seconds, apiserver_admission_controller_admission_duration_seconds{name="ValidatingAdmissionPolicy"});',
    "apiserver CPU µs: kube-apiserver's process CPU per update sent; busy cores: the whole machine's, etcd and this load generator included (well above them means other work competed).",
    '',
    `1. Latency, one update at a time (${plan.latencyUpdates} per variant and round, after ${plan.warmupUpdates} untimed)`,
    phaseTable(result.comparisons, 'latency'),
    'bound / unbound:',
    ...result.comparisons.map((comparison) => ratioLine(comparison.variant, comparison.latency, false)),
    '',
    `2. Closed loop, ${plan.throughput.concurrency} updates in flight, each writer on its own object (${fixed(plan.throughput.measureMs / 1000, 1)} s per variant and round)`,
    phaseTable(result.comparisons, 'throughput'),
    'bound / unbound:',
    ...result.comparisons.map((comparison) => ratioLine(comparison.variant, comparison.throughput, true)),
    '',
    `Refusals of timed updates (all should be allowed): out of cost budget ${refusals.outOfBudget}, evaluation errors ${refusals.evaluationError}, policy denials ${refusals.policyDenied}, other ${refusals.other}`,
    ...refusals.examples.map((example) => `  e.g. ${example}`),
    `The binding took effect ${effect(result.bindingTakesEffectMs.bind)} after its creation, and stopped ${effect(result.bindingTakesEffectMs.unbind)} after its deletion.`,
    `apiserver_validating_admission_policy_check_total at the end (it counts denials and errors, not allowed requests; the probes are denials): ${checks}`,
    `The mode took ${fixed(result.seconds, 0)} s, control plane start included.`,
    '',
  ].join('\n');
}
