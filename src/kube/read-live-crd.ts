import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import { KubeApiError, type KubeApi } from './kube-api.ts';
import { LiveReadError, liveReadFailure } from './live-read-error.ts';

/** `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/NAME` */
export function liveCrdPath(name: string): string {
  return `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`;
}

/**
 * The CRD of that name as the cluster holds it (status.storedVersions included), or undefined when the cluster has
 * none (a CRD the tree adds). A refusal names the CRD and the permission it takes.
 */
export async function readLiveCrd(api: KubeApi, name: string, signal?: AbortSignal): Promise<KubeObject | undefined> {
  const what = `get customresourcedefinition ${name} (${api.server}${liveCrdPath(name)})`;
  let body: unknown;
  try {
    ({ body } = await api.request('GET', liveCrdPath(name), signal ? { signal } : {}));
  } catch (error) {
    if (error instanceof KubeApiError && error.code === 404 && error.objectName !== undefined) return undefined;
    throw liveReadFailure(
      what,
      `get on the customresourcedefinition ${name} (crdgate manifests --crd-reads ${name} renders that ClusterRole)`,
      error,
    );
  }
  if (!isPlainObject(body))
    throw new LiveReadError('failed', `${what}: the API server answered something that is no object`);
  return body as KubeObject;
}
