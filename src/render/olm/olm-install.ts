// What OLM makes of a ClusterServiceVersion's webhooks and certificates, as operator-lifecycle-manager's
// StrategyDeploymentInstaller (pkg/controller/install) and operator-framework/api's WebhookDescription do it: the
// names and paths a bundle must agree with, since OLM, not the bundle, creates the Service, the Secret and the
// webhook configurations.

/**
 * Where OLM mounts the serving pair it makes (tls.crt, tls.key) into every container of a Deployment that a webhook
 * definition names: the folder controller-runtime reads by default, which `crdgate serve --cert-dir` reads here.
 * OLM rewrites the Secret when it rotates the pair (and rolls the pods by the olmcahash annotation); crdgate reloads
 * a pair that changes under it either way.
 */
export const olmServingCertDir = '/tmp/k8s-webhook-server/serving-certs';

/** The Service OLM creates in front of a Deployment that serves webhooks: the deployment's name, dots as dashes. */
export function olmServiceName(deploymentName: string): string {
  return `${deploymentName.replaceAll('.', '-')}-service`;
}

/** The port OLM's Service listens on, and that its webhook configurations and CRD conversions call. */
export const olmContainerPort = 443;
