import { renderGrafanaDashboard } from './grafana-dashboard.ts';
import { componentLabels, serverName, serviceDnsNames, servingCertSecretName } from './in-cluster-names.ts';
import { renderKustomization } from './kustomization.ts';
import type { GeneratedFile, Manifest } from './manifest.ts';

const dashboardFile = 'crdgate-dashboard.json';

const monitoringComment = `Monitoring for crdgate, applied beside the install (plain or cert-manager), not instead of it:
- a ServiceMonitor (Prometheus Operator) scraping GET /metrics on the webhook port over HTTPS, trusting the ca.crt
  of the serving certificate's Secret (cert-manager writes it; with \`crdgate certs\`, put ca.crt in the Secret too);
  a Prometheus that selects ServiceMonitors by label needs that label added in an overlay of your own;
- the Grafana dashboard ${dashboardFile} in a ConfigMap labelled grafana_dashboard: "1", which Grafana's
  dashboard sidecar (as kube-prometheus-stack runs it) picks up. The JSON also imports into Grafana by hand.`;

/** The monitoring kustomization: a ServiceMonitor, and the dashboard JSON provisioned as a ConfigMap. */
export function renderMonitoring(dir: string, namespace: string): GeneratedFile[] {
  return [
    {
      path: `${dir}/kustomization.yaml`,
      comment: monitoringComment,
      manifests: [
        renderKustomization('crdgate-monitoring', {
          resources: ['service-monitor.yaml'],
          configMapGenerator: [
            {
              name: 'crdgate-dashboard',
              namespace,
              files: [dashboardFile],
              // A fixed name: the sidecar follows the ConfigMap, not a hash of its contents.
              options: { disableNameSuffixHash: true, labels: { ...componentLabels('monitoring'), grafana_dashboard: '1' } },
            },
          ],
        }),
      ],
    },
    { path: `${dir}/service-monitor.yaml`, manifests: [serviceMonitor(namespace)] },
    { path: `${dir}/${dashboardFile}`, json: renderGrafanaDashboard() },
  ];
}

function serviceMonitor(namespace: string): Manifest {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: serverName, namespace, labels: componentLabels('monitoring') },
    spec: {
      selector: { matchLabels: componentLabels('webhook') },
      namespaceSelector: { matchNames: [namespace] },
      endpoints: [
        {
          port: 'https',
          scheme: 'https',
          path: '/metrics',
          interval: '30s',
          // crdgate's metrics carry an `endpoint` label (/validate, /mutate, /convert), which the operator's own
          // target label of that name (the port) would otherwise rename to exported_endpoint.
          honorLabels: true,
          tlsConfig: { serverName: serviceDnsNames(namespace)[0], ca: { secret: { name: servingCertSecretName, key: 'ca.crt' } } },
        },
      ],
    },
  };
}
