import { componentLabels, installNames, type Install } from './in-cluster-names.ts';
import type { ManifestFile } from './manifest.ts';
import { apiServerPorts } from './self-managed-certs.ts';

const nothingOut = `Traffic to crdgate's pods: only the webhook port (it also serves /healthz, /readyz and /metrics), from any
source, and nothing out (the server calls no one, not even DNS).`;

const toApiServer = `Traffic to crdgate's pods: only the webhook port (it also serves /healthz, /readyz and /metrics), from any
source; out, only to the API server, TCP 443 and 6443 to any address: a contract has a scale subresource, and the
server reads the object behind each /scale review, or a contract guards a CRD it does not own, and the server
follows that CRD. Both ports because the kubernetes Service's 443 is usually translated to the API server's own
port (6443 by default) before the policy sees the packet; no DNS (crdgate finds the API server by
KUBERNETES_SERVICE_HOST, an IP address). To tighten it, set \`to:\` to your API server's
addresses in an overlay of your own.`;

const tightenIt = `Why any source: the API server's address cannot be known in general. It may run on the host network of control
plane nodes, outside the cluster's pod network altogether (a managed control plane), or reach pods through a
tunnel (konnectivity). A policy that guesses wrong refuses every write of the guarded resources.
To tighten it, add a \`from\` to the ingress rule in an overlay of your own, e.g. your control plane's addresses:
  ingress:
    - ports: [{ port: https, protocol: TCP }]
      from:
        - ipBlock: { cidr: 10.0.0.0/24 }
Keep Prometheus able to reach /metrics (a namespaceSelector for its namespace) and the kubelet able to probe: most
network plugins always admit traffic from the pod's own node, but check yours.`;

/**
 * The NetworkPolicy of the webhook server, in a file of its own, with the comment that says how to tighten it. With
 * `apiServerEgress` (a contract has a scale subresource, or a CRD someone else owns), the server may call the API server, and nothing else.
 */
export function renderNetworkPolicyFile(
  path: string,
  install: Install,
  { apiServerEgress = false }: { apiServerEgress?: boolean } = {},
): ManifestFile {
  const labels = componentLabels(install.name, 'webhook');
  return {
    path,
    comment: `${apiServerEgress ? toApiServer : nothingOut}\n${tightenIt}`,
    manifests: [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: installNames(install.name).server, namespace: install.namespace, labels },
        spec: {
          podSelector: { matchLabels: labels },
          policyTypes: ['Ingress', 'Egress'],
          // The container port by name, so that the policy follows the Deployment if its port number changes.
          ingress: [{ ports: [{ port: 'https', protocol: 'TCP' }] }],
          egress: apiServerEgress ? [{ ports: apiServerPorts.map((port) => ({ port, protocol: 'TCP' })) }] : [],
        },
      },
    ],
  };
}
