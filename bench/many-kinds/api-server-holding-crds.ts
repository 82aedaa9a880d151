import { startControlPlane } from '../../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import type { CorpusCrd } from '../../test/fixtures/crd-corpus/corpus.ts';
import { createApiServerClient, type ApiServerClient } from '../support/api-server-client.ts';

// The API server of the --many-kinds series 'external-live': etcd and kube-apiserver on 127.0.0.1 holding the
// operators' CRDs as a cluster does (server-side applied, established), for the guards' followers of their owners'
// CRDs to read. Nothing but those followers talks to it: the reviews go straight to the webhook.

export interface ApiServerHoldingCrds {
  kubeconfigPath: string;
  /** Per CRD that could not be applied or was not established, why: a series guarding it cannot be measured. */
  refused: Map<string, string>;
  stop(): Promise<void>;
}

const crdCollection = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const establishedWithinMs = 60_000;
const fieldManager = 'crdgate-bench-many-kinds';

/** A control plane (kube-bin's binaries, built if missing) with `crds` applied; `unavailable` when it cannot run. */
export async function startApiServerHoldingCrds(
  crds: readonly CorpusCrd[],
  progress: (line: string) => void,
): Promise<ApiServerHoldingCrds | { unavailable: string }> {
  const assets = await resolveKubeAssets({ build: true, log: progress });
  if ('unavailable' in assets) return assets;
  const plane = await startControlPlane({ assetsDir: assets.dir, log: progress });
  const client = createApiServerClient(plane.kubeconfigPath, 1);
  try {
    const refused = await applyCrds(client, crds, progress);
    return { kubeconfigPath: plane.kubeconfigPath, refused, stop: () => plane.stop() };
  } catch (error) {
    await plane.stop();
    throw error;
  } finally {
    client.close();
  }
}

async function applyCrds(
  client: ApiServerClient,
  crds: readonly CorpusCrd[],
  progress: (line: string) => void,
): Promise<Map<string, string>> {
  const refused = new Map<string, string>();
  for (const crd of crds) {
    // Server-side apply, as operators' large CRDs must be installed (a client-side apply's annotation would hold a
    // copy of the CRD, past its 256 KiB limit).
    const applied = await client.call(
      'PATCH',
      `${crdCollection}/${crd.id}?fieldManager=${fieldManager}&force=true`,
      crd.crd,
      'application/apply-patch+yaml',
    );
    if (applied.status !== 200 && applied.status !== 201)
      refused.set(crd.id, `applying it: HTTP ${applied.status}: ${applied.body.toString('utf8').slice(0, 500)}`);
  }
  const deadline = performance.now() + establishedWithinMs;
  for (const crd of crds) {
    if (refused.has(crd.id)) continue;
    const why = await untilEstablished(client, crd.id, deadline);
    if (why) refused.set(crd.id, why);
  }
  progress(
    `the API server holds ${crds.length - refused.size} of ${crds.length} CRDs` +
      (refused.size > 0 ? `; refused: ${[...refused].map(([id, why]) => `${id} (${why})`).join(', ')}` : ''),
  );
  return refused;
}

/** Undefined once the CRD is Established, else why not by the deadline. */
async function untilEstablished(client: ApiServerClient, name: string, deadline: number): Promise<string | undefined> {
  let conditions: Array<{ type?: string; status?: string; message?: string }> = [];
  while (performance.now() < deadline) {
    const read = await client.json<{ status?: { conditions?: typeof conditions } }>('GET', `${crdCollection}/${name}`);
    conditions = read.status?.conditions ?? [];
    if (conditions.some((condition) => condition.type === 'Established' && condition.status === 'True')) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const said = conditions.map((condition) => `${condition.type}=${condition.status}: ${condition.message ?? ''}`);
  return `not Established within ${establishedWithinMs / 1000} s (${said.join('; ') || 'no conditions'})`;
}
