import type { Counter, Gauge } from 'prom-client';

// The manager declares the series it writes; the server's registry (server/metrics.ts) makes them.

/** What `serve --manage-certs` reports; the series exist in every mode and stay at zero without it. */
export interface SelfManagedCertificateMetrics {
  rotations: Counter<'kind' | 'result'>;
  caNotAfter: Gauge;
  caBundleRepairs: Counter<'resource'>;
  leader: Gauge;
  ready: Gauge;
}
