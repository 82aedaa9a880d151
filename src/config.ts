/** Defaults for `crdgate serve`, in one place so the CLI help, the docs (docs/cli.md) and the manifests agree. */
export const serveDefaults = {
  port: 8443,
  certDir: 'certs',
  /** The API server caps admission bodies near 3 MiB of object; 7 MiB leaves room for old + new object. */
  admissionBodyBytes: 7 * 1024 * 1024,
  /**
   * A ConversionReview carries the objects of a list or a page (500 objects of 32 KiB fit). A conversion costs about
   * six times its body in memory while it runs (body, text, objects, results, response): 64 MiB did not fit any
   * sensible memory limit (bench/hostile-memory.ts).
   */
  conversionBodyBytes: 16 * 1024 * 1024,
  /**
   * The bytes of request bodies read at once, across requests (at least one body at each limit): with the heap
   * limit of the rendered Deployment, what bounds crdgate's memory (bench/hostile-memory.ts).
   */
  inFlightBodyBytes: 32 * 1024 * 1024,
  drainDelaySeconds: 5,
  logLevel: 'info',
} as const;

/**
 * The CRD gate (`serve --crd-gate`, `manifests --crd-gate`). The API server gives its webhook timeoutSeconds; the
 * read and judging of live objects stop well before (a count and a time), so that the gate answers, on the
 * revision's own rules and with a warning, rather than the API server timing out.
 */
export const crdGateDefaults = {
  timeoutSeconds: 15,
  maxObjects: 5_000,
  readTimeoutMs: 6_000,
  pageSize: 500,
} as const;

/**
 * Defaults for `crdgate serve --manage-certs`. The serving certificate matches the cert-manager overlay's (90 days,
 * renewed with 30 left); the CA lives three years and rolls over with one left, so a rollover is a yearly event
 * that someone may watch. The overlap is long against the seconds an API server takes to load a new caBundle, and
 * the Lease is client-go's default.
 */
export const manageCertsDefaults = {
  caValidityMs: 1095 * 86_400_000,
  servingValidityMs: 90 * 86_400_000,
  caOverlapMs: 5 * 60_000,
  leaseDurationMs: 15_000,
} as const;

/** What development certificates name when `crdgate serve` has to make its own. */
export const developmentCertificate = {
  dnsNames: ['localhost'],
  ipAddresses: ['127.0.0.1'],
  days: 365,
} as const;
