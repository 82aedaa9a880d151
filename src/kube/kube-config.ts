import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { KubeconfigError } from './kubeconfig-error.ts';
import { inClusterAccess, serviceAccountPath, type ApiServerAccess } from './in-cluster-access.ts';

const serviceAccountTokenPath = join(serviceAccountPath, 'token');

/**
 * The kubeconfig to talk to the API server with: `file`, else $KUBECONFIG, ~/.kube/config or the in-cluster
 * service account, switched to `context` when one is named. Problems are KubeconfigErrors that say which.
 */
export async function loadKubeConfig(
  file: string | undefined,
  context: string | undefined,
  cwd: string,
): Promise<KubeConfig> {
  const files = file ? [resolve(cwd, file)] : defaultKubeconfigFiles();
  // client-node would fall back to http://localhost:8080 and retry it forever; kubectl says there is no config.
  if (files.length === 0 && !existsSync(serviceAccountTokenPath)) {
    throw new KubeconfigError({ problem: 'missing' });
  }
  // client-node is loaded only here, and only for a kubeconfig there is: its import takes ~0.4 s and ~64 MiB.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  try {
    if (file) kubeConfig.loadFromFile(files[0]!);
    else kubeConfig.loadFromDefault();
  } catch (error) {
    throw new KubeconfigError({ problem: 'unreadable', file, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  if (context) {
    if (!kubeConfig.getContextObject(context)) {
      throw new KubeconfigError({
        problem: 'unknown-context',
        context,
        contexts: kubeConfig.getContexts().map((c) => c.name),
      });
    }
    kubeConfig.setCurrentContext(context);
  }
  if (!kubeConfig.getCurrentCluster()) throw new KubeconfigError({ problem: 'no-current-cluster' });
  followTokenFile(kubeConfig, files);
  return kubeConfig;
}

/**
 * How to reach the API server: in a pod with no kubeconfig named or found (the case of crdgate's Deployment and
 * Jobs), the pod's service account, read without client-node; anywhere else, the kubeconfig as loadKubeConfig
 * loads it. Either is what createKubeApi takes.
 */
export async function loadApiServerAccess(
  file: string | undefined,
  context: string | undefined,
  cwd: string,
): Promise<KubeConfig | ApiServerAccess> {
  if (file === undefined && context === undefined && defaultKubeconfigFiles().length === 0) {
    const inCluster = inClusterAccess();
    if (inCluster) return inCluster;
  }
  return loadKubeConfig(file, context, cwd);
}

function defaultKubeconfigFiles(): string[] {
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  if (fromEnv.length > 0) return fromEnv;
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

/**
 * client-node reads a user's token from `token-file`, not from kubectl's `tokenFile`, and would send no credentials
 * at all (the API server's anonymous user) for a kubeconfig that kubectl reads fine. The file is re-read as
 * client-node re-reads the in-cluster token, so a projected token that rotates keeps working.
 */
function followTokenFile(kubeConfig: KubeConfig, files: readonly string[]): void {
  const user = kubeConfig.getCurrentUser();
  if (!user || user.token || user.authProvider || user.exec || user.certFile || user.certData) return;
  for (const path of files) {
    let raw: { users?: { name?: string; user?: { tokenFile?: string } }[] } | undefined;
    try {
      raw = parse(readFileSync(path, 'utf8')) as typeof raw;
    } catch {
      continue;
    }
    const tokenFile = raw?.users?.find((entry) => entry.name === user.name)?.user?.tokenFile;
    if (!tokenFile) continue;
    const index = kubeConfig.users.indexOf(user);
    kubeConfig.users[index] = {
      ...user,
      authProvider: { name: 'tokenFile', config: { tokenFile: resolve(dirname(path), tokenFile) } },
    };
    return;
  }
}
