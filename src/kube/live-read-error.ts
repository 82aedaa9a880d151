import { KubeApiError, KubeTransportError } from './kube-api.ts';
import { KubeconfigError } from './kubeconfig-error.ts';

/**
 * A read of live CRDs or objects failed: RBAC refused it (`forbidden`: the message names the permission it takes
 * and how to render it), or the API server answered another error or could not be reached (`failed`).
 */
export class LiveReadError extends Error {
  override name = 'LiveReadError';
  readonly problem: 'forbidden' | 'failed';
  constructor(problem: 'forbidden' | 'failed', message: string) {
    super(message);
    this.problem = problem;
  }
}

/**
 * The LiveReadError for a failed request: `what` names the request, `permission` what RBAC must grant for it. An
 * error that is not about the API (a bug) is handed back as it is.
 */
export function liveReadFailure(what: string, permission: string, error: unknown): Error {
  if (error instanceof KubeApiError) {
    const answered = `${error.code}${error.reason ? ` ${error.reason}` : ''}: ${error.message}`;
    if (error.code === 403 || error.code === 401)
      return new LiveReadError(
        'forbidden',
        `${what}: the API server refused it (${answered}); the identity needs ${permission}`,
      );
    return new LiveReadError('failed', `${what}: the API server answered ${answered}`);
  }
  if (error instanceof KubeTransportError || error instanceof KubeconfigError)
    return new LiveReadError('failed', `${what}: ${error.message}`);
  return error instanceof Error ? error : new Error(String(error));
}
