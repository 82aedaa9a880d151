import { jsonEqual } from '../contract/values/json-equal.ts';
import { isKubeObject, type KubeObject, type ObjectMeta } from '../contract/values/kube-object.ts';

/**
 * What a conversion changed that no conversion may change, or undefined when the result is sound. The API server
 * rejects a ConversionReview response that changes the kind or any metadata besides labels and annotations; a
 * contract bug that does so must fail loudly here, with a message that says what changed.
 */
export function conversionResultProblem(source: KubeObject, result: unknown, apiVersion: string): string | undefined {
  if (!isKubeObject(result)) return 'the conversion did not return an object';
  if (result.apiVersion !== apiVersion) {
    return `the conversion returned apiVersion ${String(result.apiVersion)}, not ${apiVersion}`;
  }
  if (result.kind !== source.kind) {
    return `the conversion changed the kind from ${String(source.kind)} to ${String(result.kind)}`;
  }
  const field = changedMetadataField(source.metadata, result.metadata);
  return field === undefined ? undefined : `the conversion changed metadata.${field}`;
}

function changedMetadataField(before: ObjectMeta | undefined, after: ObjectMeta | undefined): string | undefined {
  if (before === after) return undefined;
  const old = before ?? {};
  const next = after ?? {};
  for (const field of new Set([...Object.keys(old), ...Object.keys(next)])) {
    if (field === 'labels' || field === 'annotations') continue;
    if (!jsonEqual(old[field], next[field])) return field;
  }
  return undefined;
}
