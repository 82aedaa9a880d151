// Names the in-cluster objects share: the Service the webhooks call, the Secret the Deployment mounts, the labels
// that tie Service, Deployment and PodDisruptionBudget together. One place, so that they cannot drift apart.

export const serverName = 'crdgate';
export const servicePort = 443;
/** The Secret (type kubernetes.io/tls: tls.crt and tls.key) holding crdgate's serving certificate. */
export const servingCertSecretName = 'crdgate-serving-cert';
export const certMountPath = '/etc/crdgate/certs';
export const migrationName = 'crdgate-migrate';

export type Component = 'webhook' | 'migration' | 'monitoring';

export function componentLabels(component: Component): Record<string, string> {
  return { 'app.kubernetes.io/name': 'crdgate', 'app.kubernetes.io/component': component };
}

/** The Service's DNS names, which the serving certificate must carry. */
export function serviceDnsNames(namespace: string): string[] {
  return [`${serverName}.${namespace}.svc`, `${serverName}.${namespace}.svc.cluster.local`];
}
