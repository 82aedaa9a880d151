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
 * API server calls crdgate's mutating webhook. The API server picks configurations up from a watch a moment after
 * they are stored; the validating one is applied first, so by the time the mutating one is seen in use, it is too
 * (a schema-valid object, which only the contract's author can write, would be needed to see it called).
 */
export async function putCrdgateInFront(kubeConfig: KubeConfig, front: FrontManifests, calls: AdmissionCallCount): Promise<void> {
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
  const ordered = [...front.webhookConfigurations].sort((a, b) => kindOrder(a) - kindOrder(b));
  await serverSideApply(kubeConfig, ordered);
  await awaitMutatingWebhookInUse(kubeConfig, front.crds, calls);
}

function kindOrder(manifest: Manifest): number {
  return manifest.kind === 'ValidatingWebhookConfiguration' ? 0 : 1;
}

/** Server-side dry-run creates of an empty object of each kind: nothing is stored, but the mutating webhook is called. */
async function awaitMutatingWebhookInUse(kubeConfig: KubeConfig, crds: Manifest[], calls: AdmissionCallCount): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const crd of crds) {
    const spec = crd['spec'] as { group: string; names: { kind: string }; scope: string; versions: Array<{ name: string; storage: boolean }> };
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
