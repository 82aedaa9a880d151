/**
 * What the migration reads off a CustomResourceDefinition, checked once: a CRD the run cannot make sense of is a
 * configuration error, said in one line, before anything is written.
 */
export interface StorageFacts {
  /** PLURAL.GROUP */
  name: string;
  group: string;
  plural: string;
  namespaced: boolean;
  /** The version with `storage: true`: the one every object must be stored in. */
  storageVersion: string;
  /** The storage version has a status subresource: `--via status` can write objects through it. */
  storageHasStatus: boolean;
  /** `group/version` of every served version: managedFields entries in any other version break server-side apply. */
  servedApiVersions: Set<string>;
  storedVersions: string[];
  generation: number;
  resourceVersion: string;
}

/** The CRD's path in the API server: `resource` is its name, PLURAL.GROUP. */
export function crdPath(resource: string): string {
  return `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(resource)}`;
}

export class CrdShapeError extends Error {
  override name = 'CrdShapeError';
}

interface CrdJson {
  metadata?: { name?: string; generation?: number; resourceVersion?: string };
  spec?: {
    group?: string;
    scope?: string;
    names?: { plural?: string };
    versions?: { name?: string; served?: boolean; storage?: boolean; subresources?: { status?: unknown } }[];
  };
  status?: { storedVersions?: string[] };
}

export function readStorageFacts(crd: unknown): StorageFacts {
  const { metadata, spec, status } = (crd ?? {}) as CrdJson;
  const name = metadata?.name ?? '(unnamed)';
  const versions = spec?.versions ?? [];
  const storage = versions.filter((version) => version.storage === true);
  if (storage.length !== 1 || typeof storage[0]?.name !== 'string') {
    throw new CrdShapeError(
      `the CRD ${name} has ${storage.length} versions marked storage: true; exactly one is needed`,
    );
  }
  if (typeof spec?.group !== 'string' || typeof spec.names?.plural !== 'string')
    throw new CrdShapeError(`the CRD ${name} has no group or plural`);
  return {
    name,
    group: spec.group,
    plural: spec.names.plural,
    namespaced: spec.scope !== 'Cluster',
    storageVersion: storage[0].name,
    storageHasStatus: storage[0].subresources?.status !== undefined && storage[0].subresources.status !== null,
    servedApiVersions: new Set(
      versions.filter((version) => version.served === true).map((version) => `${spec.group}/${version.name}`),
    ),
    storedVersions: [...(status?.storedVersions ?? [])],
    generation: metadata?.generation ?? 0,
    resourceVersion: metadata?.resourceVersion ?? '',
  };
}

/** True when storedVersions already names the storage version alone: nothing is stored in any other. */
export function storedVersionsTrimmed(facts: StorageFacts): boolean {
  return facts.storedVersions.length === 1 && facts.storedVersions[0] === facts.storageVersion;
}
