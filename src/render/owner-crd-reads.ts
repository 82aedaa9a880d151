import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { installNames, type Install } from './in-cluster-names.ts';
import { serverClusterRole } from './server-cluster-role.ts';
import type { ManifestFile } from './manifest.ts';

// A contract whose CRD someone else owns makes crdgate's server follow that CRD (`crdgate serve` reports where the
// owner's schema drifted from the contract's copy, and with --owner-schema live validates with it). What that takes
// in a cluster: get, list and watch on exactly those CRDs, the ServiceAccount token, and egress to the API server.

/** The contracts whose CRD the server follows. */
export function ownerCrdFollowing(contracts: readonly Contract[]): Contract[] {
  return contracts.filter((contract) => !ownsCrd(contract));
}

const crdName = (contract: Contract) => `${contract.identity.plural}.${contract.identity.group}`;

const rbacComment = (
  contracts: readonly Contract[],
) => `What crdgate's server reads of the CRDs it guards without owning them: ${contracts.map(crdName).join(', ')}, as
the API server holds them, to report a schema that drifted from the contract's copy (crdgate_owner_crd_drift) and, with
\`serve --owner-schema live\`, to validate with it. get, list and watch by name only: the server lists and watches with
fieldSelector metadata.name=NAME, the one way kube-apiserver authorizes a list or watch against resourceNames. No
write. Without it the server keeps serving with the contracts' schemas (crdgate_owner_crd_watch_up 0).`;

/** The ClusterRole and its binding; empty when every contract owns its CRD. */
export function renderOwnerCrdReadsFile(
  path: string,
  contracts: readonly Contract[],
  install: Install,
): ManifestFile[] {
  const followed = ownerCrdFollowing(contracts);
  if (followed.length === 0) return [];
  return [
    {
      path,
      comment: rbacComment(followed),
      manifests: serverClusterRole(install, installNames(install.name).ownerCrdReads, [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          resourceNames: followed.map(crdName),
          verbs: ['get', 'list', 'watch'],
        },
      ]),
    },
  ];
}
