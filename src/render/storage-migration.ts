import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { MIGRATE_STOP_BOUND_SECONDS } from '../migrate/stop.ts';
import { resourceName } from './custom-resource-definition.ts';
import { componentLabels, installNames, migrationJobName, type Install } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security-context.ts';

const labels = (install: Install): Record<string, string> => componentLabels(install.name, 'migration');

/** How the Jobs run `crdgate migrate`: `crdgate manifests --migration-shards N --migration-via status`. */
export interface MigrationRendering {
  /**
   * Pods per Job (an Indexed Job), each migrating the objects whose namespace/name hash falls in its index with
   * `--shard I/N`. 1: one pod migrates everything, as a plain Job without --shard.
   */
  shards: number;
  /** `status`: every object is written back through its status subresource (`--via status`). */
  via?: 'status';
}

export const migrationRenderingDefaults: MigrationRendering = { shards: 1 };

/**
 * Every shard lists the whole resource (the API server has no hash selector) and writes only its part, so N shards
 * read N times what one does: past a few, more shards only add lists. The bound keeps that mistake small.
 */
export const maxMigrationShards = 64;

/**
 * The migration's V8 heap, set on the Job rather than left to V8: a run keeps one chunk of objects (about 30 MiB live
 * after a collection at the default 500), but V8 on a roomy node grows the heap it holds with the run's length, not
 * its needs (npm run bench -- --migration: 185 MiB peak RSS at 10,000 objects, 260 MiB at 100,000, past the Job's
 * 256Mi limit). Capped, the peak is the same whatever the count. Objects of tens of KiB: lower --chunk-size, or raise
 * both this cap and the limit.
 */
export const migrationNodeOptions = '--max-semi-space-size=8 --max-old-space-size=64';

/** The migration Job's container resources, for the capped heap above. */
export const migrationResources = { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } };

/**
 * A dry run (the chart's migration.dryRun) also loads the API server engine, to judge each object against the
 * storage version's rules, and the engine's WebAssembly memory and compiled code live outside the heap cap: such a
 * run peaked at 366-379 MiB resident under migrationNodeOptions, past the 256Mi limit. Each figure is the real run's
 * with 280 MiB on top, as the Deployment allows the engine with --crd-gate (server-workload.ts).
 */
export const migrationDryRunResources = { requests: { cpu: '100m', memory: '408Mi' }, limits: { memory: '536Mi' } };

/**
 * Why the contracts' Jobs cannot run with `--via status`, or undefined: the CLI refuses a CRD without a status
 * subresource in its storage version, so a Job rendered that way would only fail in the cluster.
 */
export function viaStatusProblem(contracts: readonly Contract[]): string | undefined {
  // Only the CRDs crdgate owns are migrated by it.
  const without = contracts
    .filter(ownsCrd)
    .filter((contract) => contract.versions.find((version) => version.storage)?.subresources?.status === undefined);
  if (without.length === 0) return undefined;
  return `${without.map((contract) => resourceName(contract.identity)).join(', ')} ${without.length === 1 ? 'has' : 'have'} no status subresource in the storage version`;
}

/** The shard results ConfigMap of a contract's Job: the Job's own name, so each Job has one and it is easy to find. */
export const migrationRecordName = migrationJobName;

/**
 * What `crdgate migrate` needs to run inside the cluster: its identity, the least RBAC it needs (rewrite every
 * object of the contracts' resources; read the CRDs and trim their status.storedVersions; with shards, write its
 * shard's result), a FlowSchema and PriorityLevelConfiguration that hold its requests to a small share of the API
 * server, and one Job per contract.
 */
export function renderStorageMigration(
  contracts: readonly Contract[],
  install: Install,
  image: string,
  rendering: MigrationRendering = migrationRenderingDefaults,
): Manifest[] {
  const access = migrationAccess(contracts, install, rendering);
  return [
    serviceAccount(install),
    clusterRole(access.cluster, install),
    clusterRoleBinding(install),
    ...(access.namespaced.length > 0 ? [recordRole(access.namespaced, install), recordRoleBinding(install)] : []),
    priorityLevel(install),
    flowSchema(access, install),
    ...(rendering.shards > 1 ? contracts.map((contract) => recordConfigMap(contract, install)) : []),
    ...contracts.map((contract) => job(contract, install, image, rendering)),
  ];
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

/** The RBAC rules, cluster-wide and in the install's namespace: the FlowSchema classifies exactly these requests. */
interface MigrationAccess {
  cluster: PolicyRule[];
  namespaced: PolicyRule[];
}

function migrationAccess(
  contracts: readonly Contract[],
  install: Install,
  rendering: MigrationRendering,
): MigrationAccess {
  const crdNames = contracts.map((contract) => resourceName(contract.identity));
  return {
    cluster: [
      // Exactly what `crdgate migrate` calls (the e2e suite runs it with this role and checks each verb is needed):
      // list the objects (also to re-read one by name), write them back; read the CRD, write its status.
      // `--via status` writes every object through its status subresource and none as itself: the Job then may
      // update statuses, which the kind's controllers own, and not the objects.
      ...contracts.flatMap((contract) =>
        rendering.via === 'status'
          ? [
              { apiGroups: [contract.identity.group], resources: [contract.identity.plural], verbs: ['list'] },
              {
                apiGroups: [contract.identity.group],
                resources: [`${contract.identity.plural}/status`],
                verbs: ['update'],
              },
            ]
          : [
              {
                apiGroups: [contract.identity.group],
                resources: [contract.identity.plural],
                verbs: ['list', 'update'],
              },
            ],
      ),
      // Only the contracts' own CRDs: the job has no business with anyone else's.
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: crdNames,
        verbs: ['get'],
      },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions/status'],
        resourceNames: crdNames,
        verbs: ['update'],
      },
    ],
    // Each shard records its result in its Job's ConfigMap, which the install ships empty: no create, and no
    // other ConfigMap of the namespace.
    namespaced:
      rendering.shards > 1
        ? [
            {
              apiGroups: [''],
              resources: ['configmaps'],
              resourceNames: contracts.map((contract) => migrationRecordName(install.name, contract)),
              verbs: ['get', 'update'],
            },
          ]
        : [],
  };
}

function serviceAccount(install: Install): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: installNames(install.name).migration, namespace: install.namespace, labels: labels(install) },
  };
}

function clusterRole(rules: PolicyRule[], install: Install): Manifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: installNames(install.name).migration, labels: labels(install) },
    rules,
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

function recordRole(rules: PolicyRule[], install: Install): Manifest {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: installNames(install.name).migration, namespace: install.namespace, labels: labels(install) },
    rules,
  };
}

function recordRoleBinding(install: Install): Manifest {
  const { migration } = installNames(install.name);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: migration, namespace: install.namespace, labels: labels(install) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: migration },
    subjects: [{ kind: 'ServiceAccount', name: migration, namespace: install.namespace }],
  };
}

/**
 * Where the shards write their results (`shard-I-of-N`), shipped empty. Re-applying the file leaves the shards'
 * keys alone (server-side apply: they belong to crdgate, not to the applier), so a rerun sees what earlier shards
 * recorded; results of another CRD generation or storage version do not count.
 */
function recordConfigMap(contract: Contract, install: Install): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: migrationRecordName(install.name, contract),
      namespace: install.namespace,
      labels: labels(install),
    },
  };
}

/**
 * The migration's own priority level. Its share of the API server's concurrency is small: 10 shares beside the
 * defaults' 245 give it about 4% of each API server's seats (24 of the default 600). Queuing instead of rejecting
 * smooths a burst of writers; past the queues the API server answers 429 with Retry-After, which `crdgate migrate`
 * honours. Half the seats may be lent to production levels while the migration does not use them; it borrows none,
 * so it never grows into room that production traffic may need the next moment.
 */
function priorityLevel(install: Install): Manifest {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: installNames(install.name).migration, labels: labels(install) },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 10,
        lendablePercent: 50,
        borrowingLimitPercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } },
      },
    },
  };
}

/**
 * Puts the migration's requests into its priority level. Matching precedence 1000 is ahead of the defaults that
 * would otherwise take them (`service-accounts` at 9000, `global-default` at 9900) and behind the system's own
 * (`exempt`, leader election, nodes, the controller manager and scheduler, up to 900). One flow per user: the Job's
 * pods share the ServiceAccount, so all shards queue as one flow and together get the level's share, not N of it.
 */
function flowSchema(access: MigrationAccess, install: Install): Manifest {
  const { migration } = installNames(install.name);
  // The rules' resourceNames have no counterpart here: the FlowSchema classifies, RBAC decides.
  const resourceRule = (rule: PolicyRule, namespaces: string[], clusterScope: boolean) => ({
    verbs: rule.verbs,
    apiGroups: rule.apiGroups,
    resources: rule.resources,
    ...(clusterScope ? { clusterScope: true } : {}),
    namespaces,
  });
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: migration, labels: labels(install) },
    spec: {
      priorityLevelConfiguration: { name: migration },
      matchingPrecedence: 1000,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: migration, namespace: install.namespace } }],
          // Lists of every namespace and cluster-scoped objects are cluster-scoped requests; writes of namespaced
          // objects are in their namespace.
          resourceRules: [
            ...access.cluster.map((rule) => resourceRule(rule, ['*'], true)),
            ...access.namespaced.map((rule) => resourceRule(rule, [install.namespace], false)),
          ],
        },
      ],
    },
  };
}

// The migration goes through the API server, which converts with the webhooks: the Job needs no contract code, only
// the resource's name, so it runs on any crdgate image.
function job(contract: Contract, install: Install, image: string, rendering: MigrationRendering): Manifest {
  const name = migrationJobName(install.name, contract);
  const sharded = rendering.shards > 1;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: install.namespace, labels: labels(install) },
    spec: {
      ...(sharded
        ? {
            // One pod per shard, all at once; a failed shard is retried on its own, the others are not run again.
            completionMode: 'Indexed',
            completions: rendering.shards,
            parallelism: rendering.shards,
            backoffLimitPerIndex: 3,
          }
        : { backoffLimit: 3 }),
      // Long enough to read the summary in its log; a finished Job is not worth keeping after that.
      ttlSecondsAfterFinished: 86_400,
      // `crdgate migrate` retries what can succeed on its own. Exit 2 (bad configuration) would fail every shard the
      // same way again, so it ends the Job; exit 1 (objects were refused) ends the shard's index, and the other
      // shards still finish theirs (storedVersions is trimmed only once every shard has succeeded). An evicted pod
      // does not count.
      podFailurePolicy: {
        rules: [
          ...(sharded
            ? [
                { action: 'FailJob', onExitCodes: { containerName: 'migrate', operator: 'In', values: [2] } },
                { action: 'FailIndex', onExitCodes: { containerName: 'migrate', operator: 'In', values: [1] } },
              ]
            : [{ action: 'FailJob', onExitCodes: { containerName: 'migrate', operator: 'In', values: [1, 2] } }]),
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
              args: [
                'migrate',
                '--resource',
                resourceName(contract.identity),
                // The kubelet expands $(VAR) from the container's env: the shard from the pod's completion index,
                // the record in the pod's own namespace (which a kustomization may have changed).
                ...(sharded
                  ? [
                      '--shard',
                      `$(JOB_COMPLETION_INDEX)/${rendering.shards}`,
                      '--record',
                      `$(POD_NAMESPACE)/${migrationRecordName(install.name, contract)}`,
                    ]
                  : []),
                ...(rendering.via === 'status' ? ['--via', 'status'] : []),
              ],
              env: [
                // Replaces the image's NODE_OPTIONS, which are sized for the server.
                { name: 'NODE_OPTIONS', value: migrationNodeOptions },
                ...(sharded
                  ? [
                      // The Job controller sets JOB_COMPLETION_INDEX too; said here, the args do not depend on that.
                      {
                        name: 'JOB_COMPLETION_INDEX',
                        valueFrom: {
                          fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" },
                        },
                      },
                      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                    ]
                  : []),
              ],
              resources: migrationResources,
              securityContext: restrictedContainerSecurityContext(),
            },
          ],
        },
      },
    },
  };
}
