import type { Contract } from '../contract/define-contract.ts';
import { MIGRATE_STOP_BOUND_SECONDS } from '../migrate/stop.ts';
import { resourceName } from './custom-resource-definition.ts';
import { componentLabels, installNames, migrationJobName, type Install } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security-context.ts';

const labels = (install: Install): Record<string, string> => componentLabels(install.name, 'migration');

/**
 * What `crdgate migrate` needs to run inside the cluster: its identity, the least RBAC it needs (rewrite every
 * object of the contracts' resources; read the CRDs and trim their status.storedVersions), and one Job per contract.
 */
export function renderStorageMigration(contracts: readonly Contract[], install: Install, image: string): Manifest[] {
  return [serviceAccount(install), clusterRole(contracts, install), clusterRoleBinding(install), ...contracts.map((c) => job(c, install, image))];
}

function serviceAccount(install: Install): Manifest {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: installNames(install.name).migration, namespace: install.namespace, labels: labels(install) } };
}

function clusterRole(contracts: readonly Contract[], install: Install): Manifest {
  const crdNames = contracts.map((contract) => resourceName(contract.identity));
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: installNames(install.name).migration, labels: labels(install) },
    rules: [
      // Exactly what `crdgate migrate` calls (the e2e suite runs it with this role and checks each verb is needed):
      // list the objects (also to re-read one by name), write them back; read the CRD, write its status.
      ...contracts.map((contract) => ({
        apiGroups: [contract.identity.group],
        resources: [contract.identity.plural],
        verbs: ['list', 'update'],
      })),
      // Only the contracts' own CRDs: the job has no business with anyone else's.
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: crdNames, verbs: ['get'] },
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions/status'], resourceNames: crdNames, verbs: ['update'] },
    ],
  };
}

function clusterRoleBinding(install: Install): Manifest {
  const { migration } = installNames(install.name);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: migration, labels: labels(install) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: migration },
    subjects: [{ kind: 'ServiceAccount', name: migration, namespace: install.namespace }],
  };
}

// The migration goes through the API server, which converts with the webhooks: the Job needs no contract code, only
// the resource's name, so it runs on any crdgate image.
function job(contract: Contract, install: Install, image: string): Manifest {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: migrationJobName(install.name, contract), namespace: install.namespace, labels: labels(install) },
    spec: {
      backoffLimit: 3,
      // Long enough to read the summary in its log; a finished Job is not worth keeping after that.
      ttlSecondsAfterFinished: 86_400,
      // `crdgate migrate` retries what can succeed on its own. Exit 1 (objects were refused) and 2 (bad
      // configuration) would fail the same way again, so they end the Job; an evicted pod does not count.
      podFailurePolicy: {
        rules: [
          { action: 'FailJob', onExitCodes: { containerName: 'migrate', operator: 'In', values: [1, 2] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        ],
      },
      template: {
        metadata: { labels: labels(install) },
        spec: {
          serviceAccountName: installNames(install.name).migration,
          restartPolicy: 'Never',
          // `crdgate migrate` exits within MIGRATE_STOP_BOUND_SECONDS of SIGTERM with its summary and exit 3; the
          // margin above it is for a loaded node, so that a stopped Job never ends in SIGKILL (137) and no report.
          terminationGracePeriodSeconds: MIGRATE_STOP_BOUND_SECONDS + 20,
          securityContext: restrictedPodSecurityContext(),
          containers: [
            {
              name: 'migrate',
              image,
              args: ['migrate', '--resource', resourceName(contract.identity)],
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
              securityContext: restrictedContainerSecurityContext(),
            },
          ],
        },
      },
    },
  };
}
