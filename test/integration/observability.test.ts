import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCertDir } from '../../src/certs/cert-dir.ts';
import { loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

const dashboardFile = new URL('../../manifests/overlays/monitoring/crdgate-dashboard.json', import.meta.url);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/**
 * Every sample name a scrape can carry, from the `# TYPE` lines: a metric with no sample yet (a labelled counter
 * nobody incremented) still counts, and a histogram stands for its _bucket, _sum and _count series.
 */
function exportedSampleNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const suffixes =
      type === 'histogram' ? ['_bucket', '_sum', '_count'] : type === 'summary' ? ['', '_sum', '_count'] : [''];
    for (const suffix of suffixes) names.add(`${name}${suffix}`);
  }
  return names;
}

const promqlWords = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);

/** The metric names a PromQL expression reads: identifiers that are neither functions, keywords, labels nor durations. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // label values
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // range windows
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '') // grouping labels
    .replace(/\$\w+/g, ''); // dashboard variables
  return [...bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b(?!\s*\()/g)]
    .map(([word]) => word)
    .filter((word) => !promqlWords.has(word) && !/^(Inf|NaN)$/i.test(word) && !/^\d/.test(word));
}

function dashboardQueries(dashboard: any): string[] {
  const templating = dashboard.templating.list
    .filter((v: any) => v.type === 'query')
    .map((v: any) => v.query.query as string);
  const targets = dashboard.panels.flatMap((panel: any) =>
    (panel.targets ?? []).map((target: any) => target.expr as string),
  );
  return [...templating, ...targets];
}

describe('metricNames', () => {
  it('finds the metrics in a query and nothing else', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (endpoint, le) (rate(a_bucket{endpoint=~"/x|/y", code!="200"}[$__rate_interval])))',
      ),
    ).toEqual(['a_bucket']);
    expect(metricNames('min by (pod) (b_seconds{namespace=~"$namespace"} - time()) / 86400')).toEqual(['b_seconds']);
    expect(metricNames('label_values(c_total, namespace)')).toEqual(['c_total', 'namespace']);
  });
});

describe('the Grafana dashboard', () => {
  it('queries only metrics that a running crdgate exports', async () => {
    server = await startTestServer();
    const exported = exportedSampleNames((await server.get('/metrics')).text);
    const dashboard = JSON.parse(await readFile(dashboardFile, 'utf8'));
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThan(10);
    const unknown: string[] = [];
    for (const query of queries) {
      // label_values(METRIC, LABEL): only its first argument is a metric.
      const names = query.startsWith('label_values(') ? metricNames(query).slice(0, 1) : metricNames(query);
      expect(names, query).not.toEqual([]);
      unknown.push(...names.filter((name) => !exported.has(name)).map((name) => `${name} in ${query}`));
    }
    expect(unknown).toEqual([]);
  });

  it('shows the golden signals, the serving certificate, the self-managed certificates and conversion failures', async () => {
    const used = new Set(dashboardQueries(JSON.parse(await readFile(dashboardFile, 'utf8'))).flatMap(metricNames));
    expect([...used].sort()).toEqual(
      expect.arrayContaining([
        'crdgate_http_requests_total',
        'crdgate_admission_decisions_total',
        'crdgate_conversion_reviews_total',
        'crdgate_http_request_duration_seconds_bucket',
        'crdgate_nodejs_eventloop_lag_p99_seconds',
        'crdgate_process_cpu_seconds_total',
        'crdgate_serving_certificate_not_after_timestamp_seconds',
        'crdgate_serving_certificate_reloads_total',
        'crdgate_ca_certificate_not_after_timestamp_seconds',
        'crdgate_certificates_ready',
        'crdgate_certificate_leader',
        'crdgate_certificate_rotations_total',
        'crdgate_ca_bundle_repairs_total',
      ]),
    );
  });
});

describe('serving certificate metrics', () => {
  const sample = (text: string, series: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const notAfter = async (path: string) => new X509Certificate(await readFile(path)).validToDate.getTime() / 1000;

  it('export the notAfter of the certificate in use, and count reloads loaded and refused', async () => {
    server = await startTestServer({ certPollMs: 100 });
    const scrape = async () => (await server!.get('/metrics')).text;
    let text = await scrape();
    expect(sample(text, 'crdgate_serving_certificate_not_after_timestamp_seconds')).toBe(
      await notAfter(join(server.certDir, 'tls.crt')),
    );
    expect(sample(text, 'crdgate_serving_certificate_reloads_total{result="loaded"}')).toBe(0);
    expect(sample(text, 'crdgate_serving_certificate_reloads_total{result="refused"}')).toBe(0);

    // A renewal with another lifetime (30 days, not 1), arriving by rename as a Secret volume's does.
    const staging = await mkdtemp(join(tmpdir(), 'crdgate-renew-'));
    await writeFile(join(staging, 'ca.crt'), await readFile(join(server.certDir, 'ca.crt')));
    await writeFile(join(staging, 'ca.key'), await readFile(join(server.certDir, 'ca.key')));
    await writeCertDir(staging, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 30 });
    const renewedNotAfter = await notAfter(join(staging, 'tls.crt'));
    await rename(join(staging, 'tls.key'), join(server.certDir, 'tls.key'));
    await rename(join(staging, 'tls.crt'), join(server.certDir, 'tls.crt'));
    await rm(staging, { recursive: true });
    for (
      let attempt = 0;
      attempt < 50 && sample(text, 'crdgate_serving_certificate_not_after_timestamp_seconds') !== renewedNotAfter;
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape();
    }
    expect(sample(text, 'crdgate_serving_certificate_not_after_timestamp_seconds')).toBe(renewedNotAfter);
    expect(sample(text, 'crdgate_serving_certificate_reloads_total{result="loaded"}')).toBeGreaterThanOrEqual(1);

    await writeFile(join(server.certDir, 'tls.crt'), 'not a certificate');
    for (
      let attempt = 0;
      attempt < 50 && !(sample(text, 'crdgate_serving_certificate_reloads_total{result="refused"}')! > 0);
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape();
    }
    expect(sample(text, 'crdgate_serving_certificate_reloads_total{result="refused"}')).toBeGreaterThan(0);
    // The broken files change nothing about the certificate in use.
    expect(sample(text, 'crdgate_serving_certificate_not_after_timestamp_seconds')).toBe(renewedNotAfter);
    // And the server still answers reviews with it.
    expect((await server.post('/validate', await loadFixture('create-geodatabase.json'))).status).toBe(200);
  });
});

describe('schema validators metric', () => {
  const compiled = async () => {
    const text = (await server!.get('/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith('crdgate_schema_validators_compiled{'));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };

  it('counts the versions compiled into validators: none before a review asks for one, then the one it used', async () => {
    server = await startTestServer();
    expect(await compiled()).toBe(0);
    const review = await loadFixture('create-geodatabase.json');
    expect((await server.post('/validate', review)).json().response.allowed).toBe(true);
    // The review's object is written in the hub: its version's validator, and only it.
    expect(await compiled()).toBe(1);
  });
});
