import { formatFieldError, type FieldError } from './field-error.ts';
import { valueAtPath } from './field-path.ts';
import { jsonEqual } from './json-equal.ts';
import type { KubeObject } from './kube-object.ts';

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
    const unchanged = jsonEqual(valueAtPath(oldObject, error.field), valueAtPath(object, error.field));
    (unchanged && before.has(errorKey(error)) ? result.tolerated : result.errors).push(error);
  }
  return result;
}

export function toleratedWarning(error: FieldError): string {
  return `${formatFieldError(error)} (tolerated: unchanged since before the rule)`;
}

function errorKey(error: FieldError): string {
  return `${error.type}\u0000${error.field}`;
}
