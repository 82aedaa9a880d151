import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { ProvidedControlPlane } from '../provided-context.ts';
import { kubectl } from './kubectl.ts';

/** What a pod of `serviceAccount` is given: a token from the TokenRequest API, and the cluster's server and CA. */
interface ServiceAccountCredentials {
  token: string;
  server: string;
  caData: string;
}

async function serviceAccountCredentials(
  controlPlane: ProvidedControlPlane,
  namespace: string,
  serviceAccount: string,
): Promise<ServiceAccountCredentials> {
  const token = await kubectl(controlPlane, ['create', 'token', serviceAccount, '-n', namespace, '--duration', '1h']);
  if (token.exitCode !== 0)
    throw new Error(`kubectl create token ${serviceAccount} -n ${namespace} failed: ${token.stderr}`);
  const admin = new KubeConfig();
  admin.loadFromFile(controlPlane.kubeconfigPath);
  const cluster = admin.getCurrentCluster();
  if (!cluster?.caData)
    throw new Error(`${controlPlane.kubeconfigPath} names no cluster with certificate-authority-data`);
  return { token: token.stdout.trim(), server: cluster.server, caData: cluster.caData };
}

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
  const { token, server, caData } = await serviceAccountCredentials(controlPlane, namespace, serviceAccount);
  const user = `system:serviceaccount:${namespace}:${serviceAccount}`;
  await writeFile(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'e2e', cluster: { server, 'certificate-authority-data': caData } }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: user, context: { cluster: 'e2e', user, namespace } }],
      'current-context': user,
    }),
    { mode: 0o600 },
  );
}

/**
 * What the kubelet mounts at the service-account path for a pod of `serviceAccount`, written into `dir`: token,
 * ca.crt and namespace, readable by the container's user as the kubelet's projected volume is.
 */
export async function writeServiceAccountFiles(
  controlPlane: ProvidedControlPlane,
  namespace: string,
  serviceAccount: string,
  dir: string,
): Promise<void> {
  const { token, caData } = await serviceAccountCredentials(controlPlane, namespace, serviceAccount);
  await chmod(dir, 0o755);
  await writeFile(join(dir, 'token'), token);
  await writeFile(join(dir, 'ca.crt'), Buffer.from(caData, 'base64'));
  await writeFile(join(dir, 'namespace'), namespace);
}
