/** Where the API server sends reviews, and the CA it trusts for that connection. */
export interface WebhookEndpoint {
  target: { service: { namespace: string; name: string; port: number } } | { url: string };
  caBundlePem?: string;
}

/** The routes crdgate's server answers on (src/server/app.ts); the end-to-end tests prove the two agree. */
export const webhookPaths = {
  validate: '/validate',
  mutate: '/mutate',
  convert: '/convert',
  crdGate: '/crd-gate',
} as const;

export type WebhookPath = (typeof webhookPaths)[keyof typeof webhookPaths];

/** admissionregistration.k8s.io/v1 WebhookClientConfig, which apiextensions.k8s.io/v1 shares for conversion. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path: string; port: number };
  caBundle?: string;
}

export function clientConfigFor(endpoint: WebhookEndpoint, path: WebhookPath): WebhookClientConfig {
  const { target, caBundlePem } = endpoint;
  const config: WebhookClientConfig =
    'url' in target ? { url: `${target.url}${path}` } : { service: { ...target.service, path } };
  if (caBundlePem !== undefined) config.caBundle = Buffer.from(caBundlePem, 'utf8').toString('base64');
  return config;
}
