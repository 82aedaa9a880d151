import { isPlainObject, type KubeObject } from '../../contract/values/kube-object.ts';

/**
 * The metadata only the API server sets, which differs between any two stores of the same object: left out of
 * what a prediction and an observation compare (StoredObjectOutcome).
 */
export const serverSetMetadata = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'managedFields',
  'selfLink',
] as const;

/** The object without the metadata the API server alone sets. */
export function withoutServerSetMetadata(object: KubeObject): KubeObject {
  if (!isPlainObject(object.metadata)) return object;
  const metadata = Object.fromEntries(
    Object.entries(object.metadata).filter(([key]) => !(serverSetMetadata as readonly string[]).includes(key)),
  );
  return { ...object, metadata };
}

/** What a re-create from nothing sends (a GitOps re-sync after deletion, a backup restore): metadata the object's author sets. */
export const recreatedMetadata = ['name', 'namespace', 'labels', 'annotations'] as const;

/**
 * The object as a re-create sends it: its metadata cut to name, namespace, labels and annotations (owner
 * references, finalizers and every server-set field left out, as a manifest in Git has them), and no status,
 * which a manifest does not carry and a restore of a kind with a status subresource cannot write with a create.
 */
export function asRecreated(object: KubeObject): KubeObject {
  const { status: _status, metadata, ...rest } = object;
  const kept = isPlainObject(metadata)
    ? Object.fromEntries(
        Object.entries(metadata).filter(([key]) => (recreatedMetadata as readonly string[]).includes(key)),
      )
    : {};
  return { ...rest, metadata: kept };
}
