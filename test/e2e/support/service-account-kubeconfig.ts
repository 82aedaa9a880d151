import { writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { ProvidedControlPlane } from '../provided-context.ts';
import { kubectl } from './kubectl.ts';

/**
 * A kubeconfig that authenticates as a ServiceAccount, as a pod's mounted token does: a token from the TokenRequest
 * API (the test control plane signs service-account tokens; no controller-manager runs to mint Secrets for them),
 * with the admin kubeconfig's server and CA. Everything done with it is authorized by that ServiceAccount's RBAC.
 */
export async function writeServiceAccountKubeconfig(
  controlPlane: ProvidedControlPlane,
  namespace: string,
  serviceAccount: string,
  file: string,
): Promise<void> {
  const token = await kubectl(controlPlane, ['create', 'token', serviceAccount, '-n', namespace, '--duration', '1h']);
  if (token.exitCode !== 0)
    throw new Error(`kubectl create token ${serviceAccount} -n ${namespace} failed: ${token.stderr}`);
  const admin = new KubeConfig();
  admin.loadFromFile(controlPlane.kubeconfigPath);
  const cluster = admin.getCurrentCluster();
  if (!cluster?.caData)
    throw new Error(`${controlPlane.kubeconfigPath} names no cluster with certificate-authority-data`);
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  await writeFile(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'e2e', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
      users: [{ name: user, user: { token: token.stdout.trim() } }],
      contexts: [{ name: user, context: { cluster: 'e2e', user, namespace } }],
      'current-context': user,
    }),
    { mode: 0o600 },
  );
}
