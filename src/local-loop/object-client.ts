import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { KubeApiError } from '../kube/kube-api-error.ts';
import { refusalsAsKubeApiErrors } from './refusals-as-kube-api-errors.ts';

// crdgate/testing's client speaks in crdgate's own object type and error: @kubernetes/client-node's declarations
// would otherwise become part of crdgate's public types (and need @types/ws in every project that checks them).

/** Names one object: its apiVersion and kind, and metadata.name (and metadata.namespace for a namespaced kind). */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** A request the API server refused: the one KubeApiError of crdgate's own client, public as crdgate/testing's. */
export { KubeApiError };

/** Any object, by its apiVersion and kind, as kubectl reaches it. Refusals throw KubeApiError. */
export interface ObjectClient {
  create<T extends KubeObject>(object: T): Promise<T>;
  read<T extends KubeObject = KubeObject>(reference: ObjectReference): Promise<T>;
  replace<T extends KubeObject>(object: T): Promise<T>;
  /** A JSON merge patch (RFC 7386) of the object the reference names. */
  mergePatch<T extends KubeObject = KubeObject>(reference: ObjectReference, patch: Record<string, unknown>): Promise<T>;
  delete(reference: ObjectReference): Promise<void>;
}

/** A client as the kubeconfig's user; its signature names no client-node type, so neither do crdgate's declarations. */
export function createObjectClient(kubeconfigPath: string): ObjectClient {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  return {
    create: function create(object) {
      return refusalsAsKubeApiErrors(() => api.create(object as KubernetesObject)) as never;
    },
    read: function read(reference) {
      return refusalsAsKubeApiErrors(() => api.read(reference as never)) as never;
    },
    replace: function replace(object) {
      return refusalsAsKubeApiErrors(() => api.replace(object as KubernetesObject)) as never;
    },
    mergePatch: function mergePatch(reference, patch) {
      const body = {
        ...patch,
        apiVersion: reference.apiVersion,
        kind: reference.kind,
        metadata: { ...(patch['metadata'] as object), ...reference.metadata },
      };
      return refusalsAsKubeApiErrors(() =>
        api.patch(body as KubernetesObject, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch),
      ) as never;
    },
    delete: async function remove(reference) {
      await refusalsAsKubeApiErrors(() => api.delete(reference as never));
    },
  };
}
