import { componentLabels, installNames, type Install } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';

/**
 * A ClusterRole of the server's, named `name`, and its binding to the server's ServiceAccount: what each feature
 * that makes the server an API client (the /scale reads, the owner's CRD, the CRD gate) renders, with its own rules.
 */
export function serverClusterRole(
  install: Install,
  name: string,
  rules: ReadonlyArray<Record<string, unknown>>,
): Manifest[] {
  const metadata = { name, labels: componentLabels(install.name, 'webhook') };
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: installNames(install.name).server, namespace: install.namespace }],
    },
  ];
}
