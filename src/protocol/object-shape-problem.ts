import { isPlainObject } from '../contract/values/kube-object.ts';
import { describeEnvelopeValue } from './describe-envelope-value.ts';

type Shape = 'string' | 'integer' | 'string map' | 'string list' | 'object list';

/**
 * The ObjectMeta fields and their types as the API server writes them. It decodes every object into the typed
 * ObjectMeta before a webhook sees it (and before storing it), so a value of another type never comes from a real
 * API server: it is a forged or broken review. Checking here makes `KubeObject`'s types true for every decision and
 * every rule a contract's author writes (a `name` typed string that is a number once made a denial throw).
 */
const fieldShapes: ReadonlyArray<readonly [string, Shape]> = Object.entries({
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  creationTimestamp: 'string',
  deletionTimestamp: 'string',
  generation: 'integer',
  deletionGracePeriodSeconds: 'integer',
  labels: 'string map',
  annotations: 'string map',
  finalizers: 'string list',
  ownerReferences: 'object list',
  managedFields: 'object list',
} satisfies Record<string, Shape>);

/**
 * Why `object` (a review's, at `where`) is not shaped as the API server writes an object: apiVersion, kind and
 * ObjectMeta's fields of their types when present, or undefined. Fields it does not know are left alone: the API
 * server drops them from metadata, and crdgate reads none. One step per value, never a walk into a nested one,
 * whatever the body holds.
 */
export function objectShapeProblem(object: Record<string, unknown>, where: string): string | undefined {
  for (const field of ['apiVersion', 'kind']) {
    if (Object.hasOwn(object, field) && typeof object[field] !== 'string') {
      return `${where}.${field} must be a string, got ${describeEnvelopeValue(object[field])}`;
    }
  }
  const { metadata } = object;
  if (metadata === undefined) return undefined;
  if (!isPlainObject(metadata)) return `${where}.metadata must be an object, got ${describeEnvelopeValue(metadata)}`;
  // Entries made once: this runs for every object of every review, up to 500 in one conversion.
  for (const [field, shape] of fieldShapes) {
    if (!Object.hasOwn(metadata, field)) continue;
    const value = metadata[field];
    // Go writes a zero metav1.Time as null (kubectl shows `creationTimestamp: null`); nothing else is ever null.
    if (value === null && field === 'creationTimestamp') continue;
    const problem = shapeProblem(value, shape);
    if (problem !== undefined) return `${where}.metadata.${field}${problem}`;
  }
  return undefined;
}

/** What is wrong with a value of this shape, to follow its field's name: ` must be ...` or `[key] must be ...`. */
function shapeProblem(value: unknown, shape: Shape): string | undefined {
  switch (shape) {
    case 'string':
      return typeof value === 'string' ? undefined : ` must be a string, got ${describeEnvelopeValue(value)}`;
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : ` must be an integer, got ${describeEnvelopeValue(value)}`;
    case 'string map': {
      if (!isPlainObject(value)) return ` must be an object of strings, got ${describeEnvelopeValue(value)}`;
      const key = Object.keys(value).find((k) => typeof value[k] !== 'string');
      return key === undefined
        ? undefined
        : `[${describeEnvelopeValue(key)}] must be a string, got ${describeEnvelopeValue(value[key])}`;
    }
    case 'string list':
    case 'object list': {
      const itemShape = shape === 'string list' ? 'a string' : 'an object';
      if (!Array.isArray(value)) return ` must be a list, got ${describeEnvelopeValue(value)}`;
      const index = value.findIndex((item) =>
        shape === 'string list' ? typeof item !== 'string' : !isPlainObject(item),
      );
      return index === -1 ? undefined : `[${index}] must be ${itemShape}, got ${describeEnvelopeValue(value[index])}`;
    }
  }
}
