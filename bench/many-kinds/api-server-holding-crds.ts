import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startControlPlane } from '../../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import type { CorpusCrd } from '../../test/fixtures/crd-corpus/corpus.ts';
import { createApiServerClient, type ApiServerClient } from '../support/api-server-client.ts';

// The API server of the --many-kinds series 'external-live': etcd and kube-apiserver on 127.0.0.1 holding the
// operators' CRDs as a cluster does (server-side applied, established), for the guards' followers of their owners'
// CRDs to read. Nothing but those followers talks to it: the reviews go straight to the webhook.

export interface ApiServerHoldingCrds {
  kubeconfigPath: string;
  /**
   * What a pod of crdgate's Deployment is given to reach the API server: its service account's folder (token,
   * ca.crt, namespace; a ServiceAccount allowed to read CRDs) and the variables the kubelet sets.
   */
  podAccess: { serviceAccountDir: string; env: Record<string, string> };
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
    const podAccess = await serviceAccountOfPods(client, plane.kubeconfigPath, plane.apiServerUrl, plane.dir);
    return { kubeconfigPath: plane.kubeconfigPath, podAccess, refused, stop: () => plane.stop() };
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

const account = { namespace: 'default', name: 'crdgate-bench' };

/**
 * A ServiceAccount allowed to get, list and watch CRDs (what the rendered ClusterRole NAME-owner-crds grants, for
 * every CRD rather than by name), and the folder a kubelet mounts for it: a bound token, the API server's CA and the
 * namespace. The bench's own client is the admin of the kubeconfig.
 */
async function serviceAccountOfPods(
  client: ApiServerClient,
  kubeconfigPath: string,
  apiServerUrl: string,
  planeDir: string,
): Promise<ApiServerHoldingCrds['podAccess']> {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const created = (path: string, body: unknown) =>
    client.call('POST', path, body).then((answer) => {
      if (answer.status !== 201 && answer.status !== 409)
        throw new Error(`POST ${path}: HTTP ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
    });
  await created(`/api/v1/namespaces/${account.namespace}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: account.name },
  });
  await created('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: account.name },
    rules: [
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        verbs: ['get', 'list', 'watch'],
      },
    ],
  });
  await created('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: account.name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: account.name },
    subjects: [{ kind: 'ServiceAccount', ...account }],
  });
  const token = await client.json<{ status?: { token?: string } }>(
    'POST',
    `/api/v1/namespaces/${account.namespace}/serviceaccounts/${account.name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  );
  if (!token.status?.token) throw new Error('the API server gave the ServiceAccount no token');
  const kubeconfig = parse(await readFile(kubeconfigPath, 'utf8')) as {
    clusters: Array<{ cluster: { 'certificate-authority-data': string } }>;
  };
  const dir = join(planeDir, 'service-account');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'token'), token.status.token);
  await writeFile(
    join(dir, 'ca.crt'),
    Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64'),
  );
  await writeFile(join(dir, 'namespace'), account.namespace);
  const url = new URL(apiServerUrl);
  return {
    serviceAccountDir: dir,
    env: {
      KUBERNETES_SERVICE_HOST: url.hostname,
      KUBERNETES_SERVICE_PORT: url.port,
      KUBERNETES_SERVICE_PORT_HTTPS: url.port,
    },
  };
}
