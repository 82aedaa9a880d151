import type { Contract } from '../contract/contract-definition.ts';
import { hubHasScale } from '../contract/scale-subresource.ts';
import { installNames, type Install } from './in-cluster-names.ts';
import { serverClusterRole } from './server-cluster-role.ts';
import type { ManifestFile } from './manifest.ts';

// A contract whose hub has a scale subresource makes crdgate's server a client of the API server: a /scale review
// carries an autoscaling/v1 Scale (no phase, no annotations), so the server reads the object it scales. What that
// takes in a cluster: `get` on exactly those resources, the ServiceAccount token the base otherwise withholds, and
// egress to the API server (network-policy.ts). Nothing of it is rendered for contracts without one.

/** The contracts whose /scale crdgate judges, and so reads objects of. */
export function scaleBearing(contracts: readonly Contract[]): Contract[] {
  return contracts.filter(hubHasScale);
}

const rbacComment = (
  contracts: readonly Contract[],
) => `What crdgate's server reads from the API server: the object behind each /scale review (\`kubectl scale\`, an
autoscaler), whose Scale carries neither the object's phase nor its annotations. \`get\` on ${contracts.map((c) => `${c.identity.plural}.${c.identity.group}`).join(', ')}
only, cluster-wide since the objects live in any namespace; no list, no watch, no write. Outside the cluster (--url),
crdgate reads with the kubeconfig it is given: one with a token of this ServiceAccount (\`kubectl create token\`)
is limited to this.`;

/** The ClusterRole and its binding; empty when no contract has a scale subresource on its hub. */
export function renderScaleReadsFile(path: string, contracts: readonly Contract[], install: Install): ManifestFile[] {
  const bearing = scaleBearing(contracts);
  if (bearing.length === 0) return [];
  return [
    {
      path,
      comment: rbacComment(bearing),
      manifests: serverClusterRole(
        install,
        installNames(install.name).scaleReads,
        bearing.map((contract) => ({
          apiGroups: [contract.identity.group],
          resources: [contract.identity.plural],
          verbs: ['get'],
        })),
      ),
    },
  ];
}
