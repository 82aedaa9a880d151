import { defaultInstallName } from './in-cluster-names.ts';
import type { MigrationRendering } from './storage-migration.ts';
import type { WebhookSettings } from './webhook-settings.ts';

/** What `crdgate manifests` varies; everything else is derived from the contracts. */
export interface ManifestOptions {
  /**
   * Names every object of this install, cluster-scoped ones included, so that installs for different kinds can
   * live in one cluster (and one namespace). Already checked by installNameProblem.
   */
  name: string;
  /** Where crdgate's own objects (Deployment, Service, migration Job) live. */
  namespace: string;
  image: string;
  /**
   * PEM bundle of the CA that signed crdgate's serving certificate. Without it, clientConfigs carry no caBundle,
   * which leaves them for a CA injector (such as cert-manager's) to fill in.
   */
  caBundlePem?: string;
  /**
   * `https://HOST[:PORT]` when crdgate runs outside the cluster: the API server calls it by URL, and the in-cluster
   * server objects are not rendered. Already checked by parseWebhookBaseUrl.
   */
  url?: string;
  /**
   * The `--contract` arguments of the crdgate processes the manifests run (server and migration Job), as a crdgate
   * started in the image's working directory names them. None: the image serves its built-in example.
   */
  contracts?: readonly string[];
  /**
   * How the migration Jobs run (`--migration-shards`, `--migration-via`); none: one pod per Job, writing through the
   * main resource. Already checked against maxMigrationShards and viaStatusProblem.
   */
  migration?: MigrationRendering;
  /**
   * Also render, as their owners have them, the CRDs of contracts that do not own theirs (`ownerCrd`): for a local
   * cluster where no operator installs them (`crdgate dev`). Never for a real cluster, where the owner installs them.
   */
  ownerCrds?: boolean;
  /** CRDs (`PLURAL.GROUP`, already checked) whose live objects `crdgate check --from-cluster` reads: a ClusterRole for that. */
  crdReads?: readonly string[];
  /** CRDs (`PLURAL.GROUP`, already checked) the CRD gate guards: its webhook, and the server's reads of their objects. */
  crdGate?: readonly string[];
  /** The webhooks' failurePolicy, timeoutSeconds and selectors, where the team chose them; crdgate's defaults otherwise. */
  webhooks?: WebhookSettings;
  /** The server's memory request and limit in MiB, where given (`--memory-request`, `--memory-limit`): they win. */
  serverMemory?: { requestMi?: number; limitMi?: number };
}

export const manifestDefaults = {
  name: defaultInstallName,
  namespace: 'crdgate-system',
  image: 'crdgate:0.1.0',
} as const satisfies ManifestOptions;
