import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';

/** A CRD (apiextensions.k8s.io/v1) as the revision generator and the observer handle it: plain JSON. */
export interface Crd {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; [key: string]: unknown };
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { plural: string; kind: string; [key: string]: unknown };
    versions: CrdVersion[];
    conversion?: { strategy: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema: JSONSchemaProps };
  [key: string]: unknown;
}

/** A CRD and the objects stored under it, in its storage version: what revisions are generated for. */
export interface CrdWithObjects {
  /** Names the input in reports: a fixture file, a corpus folder. */
  source: string;
  crd: Crd;
  objects: KubeObject[];
}

export function storageVersionOf(crd: Crd): CrdVersion {
  const version = crd.spec.versions.find((candidate) => candidate.storage);
  if (!version) throw new Error(`${crd.metadata.name} has no storage version`);
  return version;
}

/**
 * The CRD as it can be applied: no status, no server-set metadata; its annotations kept (a CRD of a group under
 * k8s.io must carry api-approved.kubernetes.io).
 */
export function applicableCrd(crd: Crd): Crd {
  const { status: _status, ...rest } = crd as Crd & { status?: unknown };
  const annotations = crd.metadata['annotations'];
  return {
    ...structuredClone(rest),
    metadata: {
      name: crd.metadata.name,
      ...(annotations === undefined ? {} : { annotations: structuredClone(annotations) }),
    },
  };
}
