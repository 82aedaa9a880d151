import { StopRequested } from '../abort/stop-signal.ts';
import { KubeApiError, type KubeApi } from './kube-api.ts';
import type { StoredObjectReader, StoredObjectRef } from './stored-object-reading.ts';

// The webhook server's one call to the API server: a GET of the custom object behind a /scale review. RBAC needs
// `get` on that resource and nothing else (the rendered manifests grant exactly that).

/**
 * The API server gives a webhook at most its timeoutSeconds (10 s as crdgate renders it): the read gives up well
 * before, so that crdgate answers with its own denial rather than the API server with a timeout.
 */
export const storedObjectReadTimeoutMs = 5_000;

/** The API path of the object: `/apis/GROUP/VERSION[/namespaces/NS]/PLURAL/NAME`, each part escaped. */
export function storedObjectPath(ref: StoredObjectRef): string {
  const part = encodeURIComponent;
  const namespace = ref.namespace === undefined ? '' : `/namespaces/${part(ref.namespace)}`;
  return `/apis/${part(ref.group)}/${part(ref.version)}${namespace}/${part(ref.resource)}/${part(ref.name)}`;
}

/**
 * A reader over a KubeApi, or over one to be made: `api` may be a function that makes it (loading a kubeconfig),
 * called at the first read and again after a failure, so a kubeconfig that appears later (a control plane started
 * next to crdgate) or a fixed one is picked up without a restart.
 */
export function createStoredObjectReader(api: KubeApi | (() => Promise<KubeApi>)): StoredObjectReader {
  let made: Promise<KubeApi> | undefined = typeof api === 'function' ? undefined : Promise.resolve(api);
  const client = (): Promise<KubeApi> => {
    if (made === undefined) {
      made = (api as () => Promise<KubeApi>)();
      made.catch(() => {
        made = undefined;
      });
    }
    return made;
  };
  return async function readStoredObject(ref) {
    let kube: KubeApi;
    try {
      kube = await client();
    } catch (error) {
      return { problem: `crdgate has no API server client: ${(error as Error).message}` };
    }
    const path = storedObjectPath(ref);
    try {
      const { body } = await kube.request('GET', path, { signal: AbortSignal.timeout(storedObjectReadTimeoutMs) });
      return { object: body };
    } catch (error) {
      return { problem: describeReadFailure(`GET ${kube.server}${path}`, error) };
    }
  };
}

function describeReadFailure(what: string, error: unknown): string {
  if (error instanceof KubeApiError)
    return `${what} answered ${error.code}${error.reason ? ` ${error.reason}` : ''}: ${error.message}`;
  if (error instanceof StopRequested) return `${what} gave no answer within ${storedObjectReadTimeoutMs / 1000} s`;
  return `${what} failed: ${(error as Error)?.message ?? String(error)}`;
}
