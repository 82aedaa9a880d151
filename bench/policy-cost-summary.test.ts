import { describe, expect, it } from 'vitest';
import {
  classifyRefusal,
  counterDifference,
  countRefusals,
  readServerCounters,
  summarizeWindows,
  type MeasuredWindow,
  type ServerCounters,
} from './policy-cost-summary.ts';
import { parsePrometheusText } from './support/prometheus-text.ts';

describe('classifyRefusal', () => {
  // The texts k8s.io/apiserver v1.36 answers with (plugin/policy/validating/dispatcher.go, plugin/cel/activation.go).
  const prefix = `geodatabases.geo.example.com "caches-3-0" is forbidden: ValidatingAdmissionPolicy 'crdgate.geodatabases.geo.example.com' with binding 'crdgate.geodatabases.geo.example.com' denied request: `;

  it('tells a denial by the policy from its failures', () => {
    expect(
      classifyRefusal(
        `${prefix}spec.caches[2].version: major upgrade of cache "cache-2" from Redis 7.2 to 8.0 is unsupported`,
      ),
    ).toBe('policy-denied');
    expect(
      classifyRefusal(
        `${prefix}validation failed due to running out of cost budget, no further validation rules will be run`,
      ),
    ).toBe('out-of-budget');
    expect(
      classifyRefusal(
        `${prefix}expression 'variables.changes_cache_resize == 0' resulted in error: operation cancelled: actual cost limit exceeded`,
      ),
    ).toBe('out-of-budget');
    expect(classifyRefusal(`${prefix}expression 'object.spec.x == 1' resulted in error: no such key: x`)).toBe(
      'evaluation-error',
    );
    expect(
      classifyRefusal(
        `${prefix}failed messageExpression: composited variable "state" fails to evaluate: no such key: status`,
      ),
    ).toBe('evaluation-error');
  });

  it('calls anything else other', () => {
    expect(
      classifyRefusal(
        'Operation cannot be fulfilled on geodatabases.geo.example.com "caches-3-0": the object has been modified',
      ),
    ).toBe('other');
    expect(classifyRefusal('')).toBe('other');
  });
});

const zero: ServerCounters = { vapSeconds: 0, vapUpdates: 0, putSeconds: 0, puts: 0, cpuSeconds: 0, policyChecks: 0 };

function window(
  overrides: Partial<MeasuredWindow> & Pick<MeasuredWindow, 'round' | 'mode' | 'latenciesMs'>,
): MeasuredWindow {
  return {
    variant: 'caches: 3',
    phase: 'latency',
    concurrency: 1,
    seconds: 1,
    server: zero,
    machineBusyCores: 1,
    refusals: [],
    ...overrides,
  };
}

describe('readServerCounters', () => {
  it('reads the policy plugin over UPDATEs, PUTs of the main resource only, and the process CPU', () => {
    const samples = parsePrometheusText(`
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="false",type="validate"} 0.5
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="false",type="validate"} 100
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="true",type="validate"} 2
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 7
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="geo.example.com",resource="geodatabases",scope="resource",subresource="",verb="PUT",version="v1"} 0.4
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="geo.example.com",resource="geodatabases",scope="resource",subresource="",verb="PUT",version="v1"} 99
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="geo.example.com",resource="geodatabases",scope="resource",subresource="status",verb="PUT",version="v1"} 5
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="PUT",version="v1"} 5
process_cpu_seconds_total 3.25
`);
    expect(readServerCounters(samples, { group: 'geo.example.com', plural: 'geodatabases' })).toEqual({
      vapSeconds: 0.5,
      vapUpdates: 102,
      putSeconds: 0.4,
      puts: 99,
      cpuSeconds: 3.25,
      policyChecks: 0,
    });
  });

  it('subtracts a reading from a later one', () => {
    const before = { ...zero, vapUpdates: 10, cpuSeconds: 1.5 };
    expect(counterDifference({ ...zero, vapUpdates: 30, cpuSeconds: 2 }, before)).toEqual({
      ...zero,
      vapUpdates: 20,
      cpuSeconds: 0.5,
    });
  });
});

describe('summarizeWindows', () => {
  const windows = [
    window({
      round: 1,
      mode: 'without',
      latenciesMs: [2, 4, 6],
      server: { ...zero, vapSeconds: 0.00003, vapUpdates: 3, cpuSeconds: 0.003 },
    }),
    window({
      round: 2,
      mode: 'with',
      latenciesMs: [3, 6, 9],
      server: { ...zero, vapSeconds: 0.003, vapUpdates: 3, cpuSeconds: 0.006 },
    }),
    window({
      round: 3,
      mode: 'without',
      latenciesMs: [4, 8, 12],
      server: { ...zero, vapSeconds: 0.00005, vapUpdates: 5, cpuSeconds: 0.003 },
    }),
    // One foreign UPDATE counted (the API server's own), one update of ours refused.
    window({
      round: 4,
      mode: 'with',
      latenciesMs: [4, 8],
      server: { ...zero, vapSeconds: 0.0047, vapUpdates: 4, cpuSeconds: 0.009 },
      refusals: [{ kind: 'other', status: 409, message: 'conflict' }],
    }),
    window({
      round: 1,
      mode: 'without',
      phase: 'throughput',
      concurrency: 8,
      latenciesMs: [10, 10, 10, 10],
      seconds: 2,
    }),
    window({ round: 2, mode: 'with', phase: 'throughput', concurrency: 8, latenciesMs: [20, 20], seconds: 2 }),
    window({ round: 1, mode: 'without', variant: 'caches: 8 (maxItems)', latenciesMs: [1] }),
    window({ round: 2, mode: 'with', variant: 'caches: 8 (maxItems)', latenciesMs: [2] }),
  ];
  const [three, eight] = summarizeWindows(windows);

  it('pools the rounds of each mode, per variant and phase', () => {
    expect(three!.variant).toBe('caches: 3');
    expect(eight!.variant).toBe('caches: 8 (maxItems)');
    const { without, with: bound } = three!.latency;
    expect(without.updates).toBe(6);
    // Nearest rank over [2, 4, 4, 6, 8, 12] and [3, 4, 6, 8, 9]; of two values, the lower.
    expect(without.medianMs).toBe(4);
    expect(without.p99Ms).toBe(12);
    expect(bound.medianMs).toBe(6);
    expect(without.roundMediansMs).toEqual([4, 8]);
    expect(bound.roundMediansMs).toEqual([6, 4]);
    expect(three!.latency.medianRatio).toBe(1.5);
    expect(three!.latency.p99Ratio).toBe(0.75);
    expect(three!.latency.pairedMedianRatioRange).toEqual([0.5, 1.5]);
  });

  it("gives the API server's view per update: the plugin's mean over what it counted, CPU over what was sent", () => {
    const { without, with: bound } = three!.latency;
    expect(without.vapMicrosPerUpdate).toBeCloseTo(10, 9);
    expect(bound.vapMicrosPerUpdate).toBeCloseTo(1100, 9);
    expect(bound.foreignUpdates).toBe(1);
    expect(without.foreignUpdates).toBe(2);
    expect(without.serverCpuMicrosPerUpdate).toBeCloseTo(1000, 9);
    expect(bound.serverCpuMicrosPerUpdate).toBeCloseTo(2500, 9);
    expect(three!.latency.vapMicrosAdded).toBeCloseTo(1090, 9);
    expect(three!.latency.serverCpuMicrosAdded).toBeCloseTo(1500, 9);
  });

  it('rates a closed loop by updates allowed per second of window', () => {
    expect(three!.throughput.without.updatesPerSecond).toBe(2);
    expect(three!.throughput.with.updatesPerSecond).toBe(1);
    expect(three!.throughput.throughputRatio).toBe(0.5);
  });

  it('counts refusals by kind, with examples', () => {
    expect(countRefusals(windows)).toEqual({
      outOfBudget: 0,
      evaluationError: 0,
      policyDenied: 0,
      other: 1,
      examples: ['409: conflict'],
    });
  });
});
