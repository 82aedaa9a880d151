import { ApiextensionsV1Api, KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';
import { httpsGet } from '../control-plane/https-get.ts';
import type { Manifest } from '../render/manifest.ts';
import { eventually } from './eventually.ts';
import { serverSideApply } from './server-side-apply.ts';

/** What puts a crdgate in front of an API server: its CRDs and webhook configurations, rendered by URL. */
export interface FrontManifests {
  crds: Manifest[];
  webhookConfigurations: Manifest[];
}

/** A crdgate's admission decisions so far, by webhook: how a caller sees the API server calling it. */
export type AdmissionCallCount = (webhook: 'validate' | 'mutate') => Promise<number>;

const establishTimeoutMs = 60_000;
const webhookPickupTimeoutMs = 30_000;
// The API server is local and these reads are cheap: a short interval is most of `crdgate dev`'s time to ready.
const pollIntervalMs = 50;

/**
 * Applies the CRDs, waits until each is established, then applies the webhook configurations and waits until the
 * API server calls crdgate's webhooks. The API server picks configurations up from a watch a moment after they are
 * stored. A validating webhook is called only for an object its schema takes, which only the contract's author can
 * write, so the validating configuration is applied with one more webhook, the local loop's own: a dry-run create
 * of a labelled ConfigMap reaches crdgate through it (crdgate refuses a kind it has no contract for) once the API
 * server has the configuration. The mutating webhooks are called before the schema is checked: a dry-run create
 * of an empty object of each kind that has one shows them in use.
 */
export async function putCrdgateInFront(
  kubeConfig: KubeConfig,
  front: FrontManifests,
  calls: AdmissionCallCount,
): Promise<void> {
  await serverSideApply(kubeConfig, front.crds);
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const crd of front.crds) {
    await eventually(
      `the CRD ${crd.metadata.name} to be established`,
      async () => {
        const read = await extensions.readCustomResourceDefinition({ name: crd.metadata.name });
        const established = read.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
        // A schema edit is served once the API server has taken this very generation in.
        return established && read.status?.acceptedNames?.kind !== undefined ? true : undefined;
      },
      { timeoutMs: establishTimeoutMs, intervalMs: pollIntervalMs },
    );
  }
  const ordered = [...front.webhookConfigurations].sort((a, b) => kindOrder(a) - kindOrder(b)).map(withReadyProbe);
  await serverSideApply(kubeConfig, ordered);
  await deleteStaleMutatingConfiguration(kubeConfig, front.webhookConfigurations);
  await awaitValidatingWebhooksInUse(kubeConfig, calls);
  await awaitMutatingWebhooksInUse(
    kubeConfig,
    front.crds.filter((crd) => hasMutatingWebhook(crd, front.webhookConfigurations)),
    calls,
  );
}

/**
 * Contracts without defaults have no mutating configuration: one an earlier generation applied (an edit took the
 * last default out) would go on sending writes to a crdgate that has stopped, so it is deleted.
 */
async function deleteStaleMutatingConfiguration(kubeConfig: KubeConfig, configurations: readonly Manifest[]) {
  if (configurations.some((configuration) => configuration.kind === 'MutatingWebhookConfiguration')) return;
  const validating = configurations.find((configuration) => configuration.kind === 'ValidatingWebhookConfiguration');
  if (validating === undefined) return;
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const stale = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: validating.metadata.name },
  };
  await client.delete(stale).catch((error: unknown) => {
    if ((error as { code?: number }).code !== 404) throw error;
  });
}

function kindOrder(manifest: Manifest): number {
  return manifest.kind === 'ValidatingWebhookConfiguration' ? 0 : 1;
}

const readyProbe = { name: 'crdgate-ready-probe', label: 'crdgate.local/ready-probe' } as const;

/** The validating configuration with the local loop's probe webhook, called as crdgate's first webhook is. */
function withReadyProbe(configuration: Manifest): Manifest {
  const webhooks = (configuration['webhooks'] ?? []) as Array<Record<string, unknown>>;
  if (configuration.kind !== 'ValidatingWebhookConfiguration' || webhooks.length === 0) return configuration;
  const probe = {
    name: 'ready-probe.crdgate.local',
    clientConfig: webhooks[0]!['clientConfig'],
    rules: [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: 'Namespaced' },
    ],
    objectSelector: { matchLabels: { [readyProbe.label]: 'true' } },
    // Only the probe's own dry runs: nobody else's ConfigMaps ever wait on crdgate.
    matchConditions: [
      { name: 'ready-probe', expression: `request.dryRun == true && object.metadata.name == "${readyProbe.name}"` },
    ],
    failurePolicy: 'Ignore',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
  };
  return { ...configuration, webhooks: [...webhooks, probe] };
}

/** Server-side dry-run creates of the probe's ConfigMap, until crdgate has answered one through the validating configuration. */
async function awaitValidatingWebhooksInUse(kubeConfig: KubeConfig, calls: AdmissionCallCount): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const probe = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: readyProbe.name, namespace: 'default', labels: { [readyProbe.label]: 'true' } },
  };
  const before = await calls('validate');
  await eventually(
    "the API server to call crdgate's validating webhooks",
    async () => {
      // crdgate refuses it (no contract is for ConfigMaps): only whether it was asked matters.
      await client.create(probe, undefined, 'All').catch(() => undefined);
      return (await calls('validate')) > before ? true : undefined;
    },
    { timeoutMs: webhookPickupTimeoutMs, intervalMs: pollIntervalMs },
  );
}

function hasMutatingWebhook(crd: Manifest, configurations: readonly Manifest[]): boolean {
  const spec = crd['spec'] as { group: string; names: { plural: string } };
  return configurations
    .filter((configuration) => configuration.kind === 'MutatingWebhookConfiguration')
    .flatMap(
      (configuration) =>
        (configuration['webhooks'] ?? []) as Array<{ rules?: Array<{ apiGroups?: string[]; resources?: string[] }> }>,
    )
    .some((webhook) =>
      (webhook.rules ?? []).some(
        (rule) => rule.apiGroups?.includes(spec.group) && rule.resources?.includes(spec.names.plural),
      ),
    );
}

/** Server-side dry-run creates of an empty object of each kind: nothing is stored, but the mutating webhook is called. */
async function awaitMutatingWebhooksInUse(
  kubeConfig: KubeConfig,
  crds: Manifest[],
  calls: AdmissionCallCount,
): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const crd of crds) {
    const spec = crd['spec'] as {
      group: string;
      names: { kind: string };
      scope: string;
      versions: Array<{ name: string; storage: boolean }>;
    };
    const version = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name;
    const probe = {
      apiVersion: `${spec.group}/${version}`,
      kind: spec.names.kind,
      metadata: { name: 'crdgate-ready-probe', ...(spec.scope === 'Namespaced' ? { namespace: 'default' } : {}) },
    };
    const before = await calls('mutate');
    await eventually(
      `the API server to call crdgate's mutating webhook for ${spec.names.kind}`,
      async () => {
        // The probe may well be refused (by the schema, or by crdgate): only whether crdgate was asked matters.
        await client.create(probe, undefined, 'All').catch(() => undefined);
        return (await calls('mutate')) > before ? true : undefined;
      },
      { timeoutMs: webhookPickupTimeoutMs, intervalMs: pollIntervalMs },
    );
  }
}

/** The count of admission decisions a crdgate reports on its /metrics, read over HTTPS trusting its CA. */
export function admissionCallsFromMetrics(baseUrl: string, caPem: string): AdmissionCallCount {
  return async function admissionCalls(webhook) {
    const { status, body: text } = await httpsGet(`${baseUrl}/metrics`, { ca: caPem });
    if (status !== 200) throw new Error(`GET ${baseUrl}/metrics: HTTP ${status}`);
    let total = 0;
    for (const line of text.split('\n')) {
      if (line.startsWith('crdgate_admission_decisions_total{') && line.includes(`webhook="${webhook}"`)) {
        total += Number(line.slice(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  };
}
