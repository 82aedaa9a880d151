import { ApiException } from '@kubernetes/client-node';
import { KubeApiError, type KubeStatus } from '../kube/kube-api-error.ts';

/**
 * Runs a call of @kubernetes/client-node, turning the API server's refusal into crdgate's KubeApiError: its message
 * is the Status's, as kubectl prints it, rather than client-node's dump of the whole answer, headers and all.
 */
export async function refusalsAsKubeApiErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiException) {
      const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
      throw new KubeApiError(error.code, parseStatus(body), error.headers, 'the request', body);
    }
    throw error;
  }
}

function parseStatus(body: string): KubeStatus {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as KubeStatus) : {};
  } catch {
    // Not a Status (a proxy's error page, say): its text is the message, as crdgate's own client reads it.
    return body === '' ? {} : { message: body.slice(0, 500) };
  }
}
