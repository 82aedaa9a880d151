import { isPlainObject } from '../contract/values/kube-object.ts';
import type { KubeApi } from '../kube/kube-api.ts';
import { liveCrdPath, readLiveCrd } from '../kube/read-live-crd.ts';
import { isCrdObject } from './crd-kinds.ts';
import type { ManifestContents } from './manifest-documents.ts';

/**
 * The previous revisions of `check --from-cluster`: the CRDs the cluster holds of those the tree holds (by
 * metadata.name), read once each, as a tree of their own whose locations are their URLs. status.storedVersions
 * comes with them, so storedVersionRemoval judges what the cluster really stores. A CRD the cluster lacks is one
 * the tree adds: it has no previous revision.
 */
export async function readClusterRevisions(
  api: KubeApi,
  tree: ManifestContents,
  signal?: AbortSignal,
): Promise<ManifestContents> {
  const names = new Set(
    tree.objects
      .filter(({ object }) => isCrdObject(object))
      .flatMap(({ object }) =>
        isPlainObject(object.metadata) && typeof object.metadata.name === 'string' ? [object.metadata.name] : [],
      ),
  );
  const live: ManifestContents = { objects: [], notObjects: [], invalid: [], empty: [] };
  for (const name of names) {
    const crd = await readLiveCrd(api, name, signal);
    // The API server answers a GET without apiVersion and kind on some paths; a revision is compared as a CRD.
    if (crd)
      live.objects.push({
        location: { file: `${api.server}${liveCrdPath(name)}`, document: 0, line: 0 },
        object: { ...crd, apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
      });
  }
  return live;
}

/**
 * status.storedVersions of each named CRD as the cluster holds it, for the CRDs two revisions of a contract render
 * (`check --old-contract --from-cluster`); a CRD the cluster lacks has none, and is left out.
 */
export async function readStoredVersions(
  api: KubeApi,
  names: readonly string[],
  signal?: AbortSignal,
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const name of names) {
    const crd = await readLiveCrd(api, name, signal);
    const status = isPlainObject(crd) && isPlainObject(crd.status) ? crd.status : undefined;
    if (status !== undefined && Array.isArray(status.storedVersions))
      found.set(
        name,
        status.storedVersions.filter((version): version is string => typeof version === 'string'),
      );
  }
  return found;
}
