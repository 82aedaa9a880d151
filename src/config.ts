/** Defaults for `crdgate serve`, in one place so the CLI help, the README and the manifests agree. */
export const serveDefaults = {
  port: 8443,
  certDir: 'certs',
  /** The API server caps admission bodies near 3 MiB of object; 7 MiB leaves room for old + new object. */
  admissionBodyBytes: 7 * 1024 * 1024,
  /** A ConversionReview carries a page of up to 500 objects (a list request or the migration job). */
  conversionBodyBytes: 64 * 1024 * 1024,
  drainDelaySeconds: 5,
  logLevel: 'info',
} as const;

/** What development certificates name when `crdgate serve` has to make its own. */
export const developmentCertificate = {
  dnsNames: ['localhost'],
  ipAddresses: ['127.0.0.1'],
  days: 365,
} as const;
