// crdgate's Grafana dashboard: the four golden signals per webhook (validate, mutate, convert), the serving
// certificate, the certificates `crdgate serve --manage-certs` manages and conversion failures, from the metrics
// crdgate exports (src/server/metrics.ts). A test scrapes a running server and checks that every query here names a
// metric it really exports.

const webhookEndpoints = 'endpoint=~"/validate|/mutate|/convert"';
const inNamespace = 'namespace=~"$namespace"';
const window = '[$__rate_interval]';
const managedCaNotAfter = `crdgate_ca_certificate_not_after_timestamp_seconds{${inNamespace}} > 0`;

interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  targets: Array<{ expr: string; legend: string }>;
  /** A single number (stat) rather than a graph over time. */
  stat?: { thresholds: Array<{ color: string; value: number | null }> };
}

interface RowSpec {
  title: string;
  panels: PanelSpec[];
}

const rows: RowSpec[] = [
  {
    title: 'Traffic',
    panels: [
      {
        title: 'Requests per webhook',
        description: 'Reviews the API server sends each webhook, per second.',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (endpoint) (rate(crdgate_http_requests_total{${inNamespace}, ${webhookEndpoints}}${window}))`,
            legend: '{{endpoint}}',
          },
        ],
      },
      {
        title: 'Admission decisions',
        description: 'Allowed, denied (a rule said no) and rejected (the review itself was malformed), per webhook.',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (webhook, decision) (rate(crdgate_admission_decisions_total{${inNamespace}}${window}))`,
            legend: '{{webhook}} {{decision}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Errors',
    panels: [
      {
        title: 'Denials by decision code',
        description:
          'Admission answers that are not an allow, by webhook and decision code (OBJECT_INVALID, CHANGE_FORBIDDEN, ...). INTERNAL_ERROR is crdgate failing closed.',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (webhook, code) (rate(crdgate_admission_decisions_total{${inNamespace}, decision!="allowed"}${window}))`,
            legend: '{{webhook}} {{code}}',
          },
        ],
      },
      {
        title: 'Protocol rejections',
        description:
          'HTTP answers other than 200: a malformed review (400), a wrong content type (415), a body over the limit (413), a missing client certificate (401), or a failure inside crdgate (500).',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (endpoint, code) (rate(crdgate_http_requests_total{${inNamespace}, ${webhookEndpoints}, code!="200"}${window}))`,
            legend: '{{endpoint}} {{code}}',
          },
        ],
      },
      {
        title: 'Conversion failures',
        description:
          'ConversionReviews answered Failed (an object that does not convert) or rejected as malformed. A failure makes the API server refuse to read or write the objects in that version.',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (result) (rate(crdgate_conversion_reviews_total{${inNamespace}, result!="Success"}${window}))`,
            legend: '{{result}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Latency',
    panels: [
      {
        title: 'Latency p50 and p99 per webhook',
        description:
          'Time from request to response in crdgate. The API server gives a webhook timeoutSeconds (10 s) before it fails the write.',
        unit: 's',
        targets: [0.5, 0.99].map((quantile) => ({
          expr: `histogram_quantile(${quantile}, sum by (endpoint, le) (rate(crdgate_http_request_duration_seconds_bucket{${inNamespace}, ${webhookEndpoints}}${window})))`,
          legend: `{{endpoint}} p${quantile * 100}`,
        })),
      },
    ],
  },
  {
    title: 'Saturation',
    panels: [
      {
        title: 'Event-loop lag p99 per pod',
        description: "Node's event-loop delay: every request waits this long before crdgate starts on it.",
        unit: 's',
        targets: [
          { expr: `max by (pod) (crdgate_nodejs_eventloop_lag_p99_seconds{${inNamespace}})`, legend: '{{pod}}' },
        ],
      },
      {
        title: 'CPU per pod',
        description:
          'CPU seconds per second. The Deployment sets no CPU limit, so this is what the pod takes from its node.',
        unit: 'short',
        targets: [
          {
            expr: `sum by (pod) (rate(crdgate_process_cpu_seconds_total{${inNamespace}}${window}))`,
            legend: '{{pod}}',
          },
        ],
      },
      {
        title: 'Resident memory per pod',
        description: 'Against the memory limit in the Deployment.',
        unit: 'bytes',
        targets: [{ expr: `max by (pod) (crdgate_process_resident_memory_bytes{${inNamespace}})`, legend: '{{pod}}' }],
      },
    ],
  },
  {
    title: 'Serving certificate',
    panels: [
      {
        title: 'Days until the serving certificate expires',
        description:
          'The certificate each pod serves, as loaded (renewals are picked up without a restart). cert-manager, and crdgate --manage-certs with its default 90-day certificates, renew 30 days before the end.',
        unit: 'd',
        targets: [
          {
            expr: `min by (pod) (crdgate_serving_certificate_not_after_timestamp_seconds{${inNamespace}} - time()) / 86400`,
            legend: '{{pod}}',
          },
        ],
        stat: {
          thresholds: [
            { color: 'red', value: null },
            { color: 'orange', value: 7 },
            { color: 'green', value: 21 },
          ],
        },
      },
      {
        title: 'Certificate reloads',
        description:
          'Changed certificate files seen on disk: loaded, or refused (half-written, mismatched) with the current certificate kept.',
        unit: 'short',
        targets: [
          {
            expr: `sum by (result) (increase(crdgate_serving_certificate_reloads_total{${inNamespace}}[1h]))`,
            legend: '{{result}}',
          },
        ],
      },
    ],
  },
  {
    // Every crdgate exports these series, at zero unless it runs with --manage-certs: the panels that would read a
    // zero as a fault keep only the pods whose CA expiry is set, which only --manage-certs sets.
    title: 'Certificates (crdgate serve --manage-certs)',
    panels: [
      {
        title: 'Days until the CA expires',
        description:
          'The CA that signed the certificate each pod serves. With the default --ca-validity of 1095 days, a new CA is added when 365 days remain and signs the serving certificate from --ca-overlap (5 minutes) later: well below 365, a rollover is overdue (see the rotations).',
        unit: 'd',
        targets: [{ expr: `(min by (pod) (${managedCaNotAfter}) - time()) / 86400`, legend: '{{pod}}' }],
        stat: {
          thresholds: [
            { color: 'red', value: null },
            { color: 'orange', value: 30 },
            { color: 'green', value: 330 },
          ],
        },
      },
      {
        title: 'Certificates ready',
        description:
          "1 when the CA of the certificate the pod serves is in every caBundle crdgate manages (both webhook configurations, each CRD's conversion webhook); the pod's /readyz fails while it is 0.",
        unit: 'short',
        targets: [
          {
            expr: `min by (pod) (crdgate_certificates_ready{${inNamespace}} and on (namespace, pod) (${managedCaNotAfter}))`,
            legend: '{{pod}}',
          },
        ],
        stat: {
          thresholds: [
            { color: 'red', value: null },
            { color: 'green', value: 1 },
          ],
        },
      },
      {
        title: 'Certificate leader',
        description:
          'Which replica holds the Lease NAME-certs and so fills, rotates and repairs: one at a time. None for longer than --lease-duration (15 s) means nobody renews or repairs.',
        unit: 'short',
        targets: [
          {
            expr: `max by (pod) (crdgate_certificate_leader{${inNamespace}} and on (namespace, pod) (${managedCaNotAfter}))`,
            legend: '{{pod}}',
          },
        ],
      },
      {
        title: 'Certificate rotations',
        description:
          'Steps the leader took, by kind (issue: the first pair; serving: a renewal; ca_add, ca_switch, ca_retire: the three steps of a CA rollover) and result. A failure is retried; the log line "certificate rotation" says why.',
        unit: 'short',
        targets: [
          {
            expr: `sum by (kind, result) (increase(crdgate_certificate_rotations_total{${inNamespace}}[1h]))`,
            legend: '{{kind}} {{result}}',
          },
        ],
      },
      {
        title: 'caBundle repairs',
        description:
          'caBundles the leader found different from the Secret\'s ca.crt and rewrote, by resource: each is a re-apply or an edit that emptied or changed one (the log line "caBundle repaired" names the object).',
        unit: 'short',
        targets: [
          {
            expr: `sum by (resource) (increase(crdgate_ca_bundle_repairs_total{${inNamespace}}[1h]))`,
            legend: '{{resource}}',
          },
        ],
      },
    ],
  },
];

const datasource = { type: 'prometheus', uid: '${datasource}' };

const panelsPerLine = 3;

/** The dashboard as Grafana's JSON model, laid out row by row, panels side by side. */
export function renderGrafanaDashboard(): Record<string, unknown> {
  const panels: Array<Record<string, unknown>> = [];
  let y = 0;
  let id = 1;
  for (const row of rows) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y },
      panels: [],
    });
    y += 1;
    // At most three panels side by side: more would be too narrow to read a legend.
    for (let first = 0; first < row.panels.length; first += panelsPerLine) {
      const line = row.panels.slice(first, first + panelsPerLine);
      const width = 24 / line.length;
      line.forEach((panel, index) => {
        panels.push(renderPanel(panel, id++, { h: 8, w: width, x: index * width, y }));
      });
      y += 8;
    }
  }
  return {
    title: 'crdgate',
    uid: 'crdgate',
    description:
      'crdgate admission and conversion webhooks: traffic, errors, latency, saturation, serving certificate, self-managed certificates.',
    tags: ['crdgate', 'kubernetes', 'webhook'],
    editable: true,
    schemaVersion: 39,
    time: { from: 'now-6h', to: 'now' },
    refresh: '1m',
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus' },
        {
          name: 'namespace',
          label: 'Namespace',
          type: 'query',
          datasource,
          query: { query: 'label_values(crdgate_http_requests_total, namespace)', refId: 'namespaces' },
          refresh: 2,
          includeAll: true,
          multi: true,
          current: { text: 'All', value: '$__all' },
        },
      ],
    },
    panels,
  };
}

function renderPanel(panel: PanelSpec, id: number, gridPos: Record<string, number>): Record<string, unknown> {
  return {
    id,
    type: panel.stat ? 'stat' : 'timeseries',
    title: panel.title,
    description: panel.description,
    datasource,
    gridPos,
    fieldConfig: {
      defaults: {
        unit: panel.unit,
        ...(panel.stat ? { thresholds: { mode: 'absolute', steps: panel.stat.thresholds } } : {}),
      },
      overrides: [],
    },
    options: panel.stat
      ? { reduceOptions: { calcs: ['lastNotNull'] }, colorMode: 'background' }
      : { legend: { displayMode: 'table', placement: 'bottom', calcs: ['mean', 'max'] } },
    targets: panel.targets.map((target, index) => ({
      refId: String.fromCharCode(65 + index),
      datasource,
      expr: target.expr,
      legendFormat: target.legend,
    })),
  };
}
