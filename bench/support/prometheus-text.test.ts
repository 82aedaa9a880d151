import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sumSamples } from './prometheus-text.ts';

// Lines as kube-apiserver v1.36 serves them on /metrics.
const exposition = `# HELP apiserver_admission_controller_admission_duration_seconds [STABLE] Admission controller latency histogram in seconds
# TYPE apiserver_admission_controller_admission_duration_seconds histogram
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="false",type="validate",le="0.005"} 16
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="false",type="validate",le="+Inf"} 16
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="false",type="validate"} 8.308199999999999e-05
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="false",type="validate"} 16
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="true",type="validate"} 0.002
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="UPDATE",rejected="true",type="validate"} 2
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 0.000408167
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionWebhook",operation="UPDATE",rejected="false",type="validate"} 99
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="geo.example.com",resource="geodatabases",scope="resource",subresource="",verb="PUT",version="v1"} 40
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="geo.example.com",resource="geodatabases",scope="resource",subresource="status",verb="PUT",version="v1"} 3
process_cpu_seconds_total 12.5
weird_label{message="a \\"quoted\\" word, a \\\\ and a\\nline"} NaN
`;

describe('parsePrometheusText', () => {
  const samples = parsePrometheusText(exposition);

  it('reads names, labels and values, skipping comments', () => {
    expect(samples).toHaveLength(12);
    expect(samples[0]).toEqual({
      name: 'apiserver_admission_controller_admission_duration_seconds_bucket',
      labels: {
        name: 'ValidatingAdmissionPolicy',
        operation: 'UPDATE',
        rejected: 'false',
        type: 'validate',
        le: '0.005',
      },
      value: 16,
    });
    expect(samples[1]!.labels['le']).toBe('+Inf');
    expect(samples.find((s) => s.name === 'process_cpu_seconds_total')).toEqual({
      name: 'process_cpu_seconds_total',
      labels: {},
      value: 12.5,
    });
  });

  it('unescapes label values and reads NaN', () => {
    const weird = samples.find((s) => s.name === 'weird_label')!;
    expect(weird.labels['message']).toBe('a "quoted" word, a \\ and a\nline');
    expect(weird.value).toBeNaN();
    // As prom-client writes a gauge that has no sample yet.
    expect(parsePrometheusText('crdgate_nodejs_eventloop_lag_mean_seconds Nan')[0]!.value).toBeNaN();
  });

  it('fails on a line it cannot read, rather than reading it as zero', () => {
    expect(() => parsePrometheusText('apiserver_x{name="open} 1')).toThrow(
      /not a Prometheus sample line|unreadable labels/,
    );
    expect(() => parsePrometheusText('apiserver_x 1,5')).toThrow(/unreadable sample value "1,5"/);
  });
});

describe('sumSamples', () => {
  const samples = parsePrometheusText(exposition);

  it('sums every sample of the name whose labels include the ones given', () => {
    const vapUpdates = { name: 'ValidatingAdmissionPolicy', operation: 'UPDATE', type: 'validate' };
    expect(sumSamples(samples, 'apiserver_admission_controller_admission_duration_seconds_count', vapUpdates)).toBe(18);
    expect(
      sumSamples(samples, 'apiserver_admission_controller_admission_duration_seconds_count', {
        ...vapUpdates,
        rejected: 'false',
      }),
    ).toBe(16);
    expect(
      sumSamples(samples, 'apiserver_admission_controller_admission_duration_seconds_sum', vapUpdates),
    ).toBeCloseTo(0.002083082, 12);
  });

  it('matches a wanted empty label value, and is 0 when nothing matches', () => {
    expect(
      sumSamples(samples, 'apiserver_request_duration_seconds_count', {
        verb: 'PUT',
        resource: 'geodatabases',
        subresource: '',
      }),
    ).toBe(40);
    expect(
      sumSamples(samples, 'apiserver_request_duration_seconds_count', { verb: 'PUT', resource: 'geodatabases' }),
    ).toBe(43);
    expect(sumSamples(samples, 'apiserver_validating_admission_policy_check_total')).toBe(0);
  });
});
