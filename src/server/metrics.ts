import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SelfManagedCertificateMetrics } from '../certs/self-managed/certificate-metrics.ts';

/** One registry per server instance (never prom-client's global one), so tests and embedders get their own. */
export interface ServerMetrics {
  registry: Registry;
  requests: Counter<'endpoint' | 'code'>;
  latency: Histogram<'endpoint'>;
  decisions: Counter<'webhook' | 'decision' | 'code'>;
  conversions: Counter<'result'>;
  certificateNotAfter: Gauge;
  certificateReloads: Counter<'result'>;
  selfManaged: SelfManagedCertificateMetrics;
  ownerCrds: OwnerCrdMetrics;
  /** Per contract (`plural.group`), how many of its versions' schemas are compiled into validators so far. */
  validatorsCompiled: Gauge<'crd'>;
}

/** What crdgate reports of the live CRDs of contracts it does not own (crdOwner: 'external'); no series without one. */
export interface OwnerCrdMetrics {
  watchUp: Gauge<'crd'>;
  drift: Gauge<'crd' | 'version'>;
  driftPaths: Gauge<'crd' | 'version'>;
  liveSchema: Gauge<'crd' | 'version'>;
  schemaRefusals: Counter<'crd'>;
}

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'crdgate_' });
  const certificateReloads = new Counter({
    name: 'crdgate_serving_certificate_reloads_total',
    help: 'Serving certificate files found changed on disk, by result: loaded, or refused with the current pair kept (counted at every check while they stay broken).',
    labelNames: ['result'],
    registers: [registry],
  });
  // Both series exist from the start, so that an alert on refusals needs no absent() and a rate has a zero to start from.
  for (const result of ['loaded', 'refused']) certificateReloads.inc({ result }, 0);
  return {
    registry,
    requests: new Counter({
      name: 'crdgate_http_requests_total',
      help: 'HTTP requests by endpoint and response status code.',
      labelNames: ['endpoint', 'code'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'crdgate_http_request_duration_seconds',
      help: 'Time from request to response, by endpoint.',
      labelNames: ['endpoint'],
      // The API server's webhook timeout is at most 30 s and crdgate's own budget is milliseconds.
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers: [registry],
    }),
    validatorsCompiled: new Gauge({
      name: 'crdgate_schema_validators_compiled',
      help: 'Versions of the contract whose schema is compiled into a validator so far: each is compiled when a webhook first validates with it (a version the API server validates for it never is), and holds megabytes of code for a large CRD.',
      labelNames: ['crd'],
      registers: [registry],
    }),
    decisions: new Counter({
      name: 'crdgate_admission_decisions_total',
      help: 'Admission decisions by webhook, outcome and decision code.',
      labelNames: ['webhook', 'decision', 'code'],
      registers: [registry],
    }),
    conversions: new Counter({
      name: 'crdgate_conversion_reviews_total',
      help: 'ConversionReviews answered, by result.',
      labelNames: ['result'],
      registers: [registry],
    }),
    certificateNotAfter: new Gauge({
      name: 'crdgate_serving_certificate_not_after_timestamp_seconds',
      help: 'When the serving certificate in use expires (its notAfter), in seconds since the Unix epoch.',
      registers: [registry],
    }),
    certificateReloads,
    selfManaged: selfManagedCertificateMetrics(registry),
    ownerCrds: ownerCrdMetrics(registry),
  };
}

function ownerCrdMetrics(registry: Registry): OwnerCrdMetrics {
  return {
    watchUp: new Gauge({
      name: 'crdgate_owner_crd_watch_up',
      help: "1 while crdgate follows the owner's CRD of a contract it does not own (listed, and watched), 0 while it cannot (API server unreachable, RBAC missing), by CRD name.",
      labelNames: ['crd'],
      registers: [registry],
    }),
    drift: new Gauge({
      name: 'crdgate_owner_crd_drift',
      help: "1 when the owner's live CRD differs from the contract's copy in this version (a field, a keyword, or the version itself on one side only), else 0.",
      labelNames: ['crd', 'version'],
      registers: [registry],
    }),
    driftPaths: new Gauge({
      name: 'crdgate_owner_crd_drift_paths',
      help: "How many fields of this version differ between the owner's live CRD and the contract's copy (0 for a version only one side has).",
      labelNames: ['crd', 'version'],
      registers: [registry],
    }),
    liveSchema: new Gauge({
      name: 'crdgate_owner_crd_live_schema',
      help: "1 when this version is validated with the owner's live schema (serve --owner-schema live), 0 when with the contract's copy.",
      labelNames: ['crd', 'version'],
      registers: [registry],
    }),
    schemaRefusals: new Counter({
      name: 'crdgate_owner_crd_schema_refusals_total',
      help: 'Live CRDs crdgate could not compile a validator from (serve --owner-schema live): it kept validating with the schema it had.',
      labelNames: ['crd'],
      registers: [registry],
    }),
  };
}

function selfManagedCertificateMetrics(registry: Registry): SelfManagedCertificateMetrics {
  return {
    rotations: new Counter({
      name: 'crdgate_certificate_rotations_total',
      help: 'Steps of certificate rotation this replica took as leader (issue, serving, ca_add, ca_switch, ca_retire), by result.',
      labelNames: ['kind', 'result'],
      registers: [registry],
    }),
    caNotAfter: new Gauge({
      name: 'crdgate_ca_certificate_not_after_timestamp_seconds',
      help: 'When the CA that signed the serving certificate in use expires, in seconds since the Unix epoch (with --manage-certs).',
      registers: [registry],
    }),
    caBundleRepairs: new Counter({
      name: 'crdgate_ca_bundle_repairs_total',
      help: 'caBundles this replica rewrote because they no longer trusted the signing CA (blanked, stale, edited), by resource; a fresh install filling them in is not counted.',
      labelNames: ['resource'],
      registers: [registry],
    }),
    leader: new Gauge({
      name: 'crdgate_certificate_leader',
      help: '1 while this replica holds the certificate Lease (with --manage-certs), else 0.',
      registers: [registry],
    }),
    ready: new Gauge({
      name: 'crdgate_certificates_ready',
      help: '1 while the CA of the certificate this replica serves is in every caBundle it manages (with --manage-certs), else 0.',
      registers: [registry],
    }),
  };
}
