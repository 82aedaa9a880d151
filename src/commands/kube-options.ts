import type { KubeConfig } from '@kubernetes/client-node';
import { CommandError } from '../errors.ts';
import type { ApiServerAccess } from '../kube/in-cluster-access.ts';
import { loadApiServerAccess } from '../kube/kube-config.ts';
import { KubeconfigError, type KubeconfigProblem } from '../kube/kubeconfig-error.ts';
import { stringOption, type ParsedValues } from './command.ts';

/**
 * The API server of --kubeconfig and --context (or the pod's service account, see loadApiServerAccess). The loader
 * knows nothing of flags; its problems come back here as command errors that name the flag to fix them with.
 */
export async function apiServerAccessFromFlags(
  values: ParsedValues,
  cwd: string,
): Promise<KubeConfig | ApiServerAccess> {
  try {
    return await loadApiServerAccess(stringOption(values, 'kubeconfig'), stringOption(values, 'context'), cwd);
  } catch (error) {
    throw error instanceof KubeconfigError ? kubeconfigCommandError(error.detail, error.message) : error;
  }
}

function kubeconfigCommandError(detail: KubeconfigProblem, message: string): CommandError {
  switch (detail.problem) {
    case 'missing':
      return new CommandError(
        'KUBECONFIG_MISSING',
        'no kubeconfig: pass --kubeconfig FILE, set $KUBECONFIG, write ~/.kube/config, or run in a pod with a service account token',
      );
    case 'unreadable':
      return new CommandError('KUBECONFIG_INVALID', message);
    case 'unknown-context':
      return new CommandError(
        'KUBE_CONTEXT_UNKNOWN',
        `--context ${detail.context}: no such context in the kubeconfig (contexts: ${detail.contexts.join(', ') || 'none'})`,
      );
    case 'no-current-cluster':
      return new CommandError(
        'KUBECONFIG_INVALID',
        'the kubeconfig has no current cluster (set a current context or pass --context)',
      );
    case 'no-credentials':
      return new CommandError('KUBECONFIG_INVALID', message);
  }
}
