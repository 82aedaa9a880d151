import { componentLabels, installNames, type Install } from './in-cluster-names.ts';
import type { ManifestFile } from './manifest.ts';

const tightenIt = `Traffic to crdgate's pods: only the webhook port (it also serves /healthz, /readyz and /metrics), from any
source, and nothing out (the server calls no one, not even DNS).
Why any source: the API server's address cannot be known in general. It may run on the host network of control
plane nodes, outside the cluster's pod network altogether (a managed control plane), or reach pods through a
tunnel (konnectivity). A policy that guesses wrong refuses every write of the guarded resources.
To tighten it, add a \`from\` to the ingress rule in an overlay of your own, e.g. your control plane's addresses:
  ingress:
    - ports: [{ port: https, protocol: TCP }]
      from:
        - ipBlock: { cidr: 10.0.0.0/24 }
Keep Prometheus able to reach /metrics (a namespaceSelector for its namespace) and the kubelet able to probe: most
network plugins always admit traffic from the pod's own node, but check yours.`;

/** The NetworkPolicy of the webhook server, in a file of its own, with the comment that says how to tighten it. */
export function renderNetworkPolicyFile(path: string, install: Install): ManifestFile {
  const labels = componentLabels(install.name, 'webhook');
  return {
    path,
    comment: tightenIt,
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
          egress: [],
        },
      },
    ],
  };
}
