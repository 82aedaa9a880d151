import { renderGrafanaDashboard } from './grafana-dashboard.ts';
import { componentLabels, installNames, serviceDnsNames, type Install } from './in-cluster-names.ts';
import { renderKustomization } from './kustomization.ts';
import type { GeneratedFile, Manifest } from './manifest.ts';

const dashboardFile = 'crdgate-dashboard.json';

const monitoringComment = `Monitoring for crdgate, applied beside the install (plain, cert-manager or self-managed-certs), not instead of it:
- a ServiceMonitor (Prometheus Operator) scraping GET /metrics on the webhook port over HTTPS, trusting the ca.crt
  of the serving certificate's Secret (cert-manager and crdgate serve --manage-certs write it; with
  \`crdgate certs\`, put ca.crt in the Secret too);
  a Prometheus that selects ServiceMonitors by label needs that label added in an overlay of your own;
- the Grafana dashboard ${dashboardFile} in a ConfigMap labelled grafana_dashboard: "1", which Grafana's
  dashboard sidecar (as kube-prometheus-stack runs it) picks up. The JSON also imports into Grafana by hand.`;

/** The monitoring kustomization: a ServiceMonitor, and the dashboard JSON provisioned as a ConfigMap. */
export function renderMonitoring(dir: string, install: Install): GeneratedFile[] {
  return [
    {
      path: `${dir}/kustomization.yaml`,
      comment: monitoringComment,
      manifests: [
        renderKustomization('crdgate-monitoring', {
          resources: ['service-monitor.yaml'],
          configMapGenerator: [
            {
              name: installNames(install.name).dashboard,
              namespace: install.namespace,
              files: [dashboardFile],
              // A fixed name: the sidecar follows the ConfigMap, not a hash of its contents.
              options: {
                disableNameSuffixHash: true,
                labels: { ...componentLabels(install.name, 'monitoring'), grafana_dashboard: '1' },
              },
            },
          ],
        }),
      ],
    },
    { path: `${dir}/service-monitor.yaml`, manifests: [serviceMonitor(install)] },
    { path: `${dir}/${dashboardFile}`, json: renderGrafanaDashboard() },
  ];
}

function serviceMonitor(install: Install): Manifest {
  const names = installNames(install.name);
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: names.server, namespace: install.namespace, labels: componentLabels(install.name, 'monitoring') },
    spec: {
      selector: { matchLabels: componentLabels(install.name, 'webhook') },
      namespaceSelector: { matchNames: [install.namespace] },
      endpoints: [
        {
          port: 'https',
          scheme: 'https',
          path: '/metrics',
          interval: '30s',
          // crdgate's metrics carry an `endpoint` label (/validate, /mutate, /convert), which the operator's own
          // target label of that name (the port) would otherwise rename to exported_endpoint.
          honorLabels: true,
          tlsConfig: {
            serverName: serviceDnsNames(install)[0],
            ca: { secret: { name: names.servingCertSecret, key: 'ca.crt' } },
          },
        },
      ],
    },
  };
}
