import { resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { UsageError } from '../commands/command.ts';

/**
 * The kubeconfig a command talks to the API server with: `file`, else $KUBECONFIG, ~/.kube/config or the
 * in-cluster service account, switched to `context` when one is named. Problems are usage errors that say which.
 */
export async function loadKubeConfig(file: string | undefined, context: string | undefined, cwd: string): Promise<KubeConfig> {
  // client-node is loaded only here: it costs every other command (serve's start-up among them) ~0.4 s.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kubeConfig = new KubeConfig();
  try {
    if (file) kubeConfig.loadFromFile(resolve(cwd, file));
    else kubeConfig.loadFromDefault();
  } catch (error) {
    throw new UsageError(`cannot load the kubeconfig${file ? ` ${file}` : ''}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (context) {
    if (!kubeConfig.getContextObject(context)) {
      throw new UsageError(`--context ${context}: no such context in the kubeconfig (contexts: ${kubeConfig.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    kubeConfig.setCurrentContext(context);
  }
  return kubeConfig;
}
