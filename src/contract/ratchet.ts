import { formatFieldError, type FieldError } from './values/field-error.ts';
import { parseFieldPath, valueAtSegments } from './values/field-path.ts';
import { jsonEqual } from './values/json-equal.ts';
import type { KubeObject } from './values/kube-object.ts';

export interface RatchetResult {
  /** Errors the update introduced or touched: these still deny. */
  errors: FieldError[];
  /** Errors the old object already had at a value the update left alone: tolerated, reported as warnings. */
  tolerated: FieldError[];
}

/**
 * Kubernetes ratchets schema errors on update since 1.33; crdgate does it for every rule, so tightening a rule
 * never blocks an unrelated edit (or the migration job's no-op rewrite) of an object stored before the change.
 * `oldErrors` is computed lazily: most updates are valid and never pay for validating the old object.
 * The caller passes the two objects the errors' paths were found in, in the same version: an error is tolerated
 * only when its value is provably unchanged, so a path that leads nowhere in either object is compared as absent
 * in both only because both objects are the ones the errors were computed on.
 */
export function ratchet(
  errors: FieldError[],
  oldObject: KubeObject,
  object: KubeObject,
  oldErrors: () => FieldError[],
): RatchetResult {
  if (errors.length === 0) return { errors, tolerated: [] };
  const before = new Set(oldErrors().map(errorKey));
  const result: RatchetResult = { errors: [], tolerated: [] };
  for (const error of errors) {
    const path = fieldSegments(error);
    const unchanged = jsonEqual(valueAtSegments(oldObject, path), valueAtSegments(object, path));
    (unchanged && before.has(errorKey(error)) ? result.tolerated : result.errors).push(error);
  }
  return result;
}

export function toleratedWarning(error: FieldError): string {
  return `${formatFieldError(error)} (tolerated: unchanged since before the rule)`;
}

function errorKey(error: FieldError): string {
  return `${error.type}\u0000${error.field}\u0000${JSON.stringify(error.path ?? null)}`;
}

function fieldSegments(error: FieldError): ReadonlyArray<string | number> {
  return error.path ?? parseFieldPath(error.field);
}
