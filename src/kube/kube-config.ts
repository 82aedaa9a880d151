import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';

const serviceAccountTokenPath = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** What is wrong with the kubeconfig, with what a caller needs to say how to fix it in its own terms (flags, say). */
export type KubeconfigProblem =
  | { problem: 'missing' }
  | { problem: 'unreadable'; file: string | undefined; detail: string }
  | { problem: 'unknown-context'; context: string; contexts: string[] }
  | { problem: 'no-current-cluster' };

/** The kubeconfig cannot be had or used. The message says what in the kubeconfig's terms; `detail` says it as data. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
  readonly detail: KubeconfigProblem;

  constructor(detail: KubeconfigProblem) {
    super(describeKubeconfigProblem(detail));
    this.detail = detail;
  }
}

function describeKubeconfigProblem(detail: KubeconfigProblem): string {
  switch (detail.problem) {
    case 'missing':
      return 'no kubeconfig: $KUBECONFIG is empty, there is no ~/.kube/config, and no service account token';
    case 'unreadable':
      return `cannot load the kubeconfig${detail.file ? ` ${detail.file}` : ''}: ${detail.detail}`;
    case 'unknown-context':
      return `no context ${detail.context} in the kubeconfig (contexts: ${detail.contexts.join(', ') || 'none'})`;
    case 'no-current-cluster':
      return 'the kubeconfig has no current cluster (no current context, or one naming no cluster)';
  }
}

/**
 * The kubeconfig to talk to the API server with: `file`, else $KUBECONFIG, ~/.kube/config or the in-cluster
 * service account, switched to `context` when one is named. Problems are KubeconfigErrors that say which.
 */
export async function loadKubeConfig(file: string | undefined, context: string | undefined, cwd: string): Promise<KubeConfig> {
  // client-node is loaded only here: it costs every other command (serve's start-up among them) ~0.4 s.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  const files = file ? [resolve(cwd, file)] : defaultKubeconfigFiles();
  // client-node would fall back to http://localhost:8080 and retry it forever; kubectl says there is no config.
  if (files.length === 0 && !existsSync(serviceAccountTokenPath)) {
    throw new KubeconfigError({ problem: 'missing' });
  }
  try {
    if (file) kubeConfig.loadFromFile(files[0]!);
    else kubeConfig.loadFromDefault();
  } catch (error) {
    throw new KubeconfigError({ problem: 'unreadable', file, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  if (context) {
    if (!kubeConfig.getContextObject(context)) {
      throw new KubeconfigError({ problem: 'unknown-context', context, contexts: kubeConfig.getContexts().map((c) => c.name) });
    }
    kubeConfig.setCurrentContext(context);
  }
  if (!kubeConfig.getCurrentCluster()) throw new KubeconfigError({ problem: 'no-current-cluster' });
  followTokenFile(kubeConfig, files);
  return kubeConfig;
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
    kubeConfig.users[index] = { ...user, authProvider: { name: 'tokenFile', config: { tokenFile: resolve(dirname(path), tokenFile) } } };
    return;
  }
}
