import { isPlainObject } from '../contract/kube-object.ts';

/**
 * The fields of `value` a version has (`shown`) and the others (`lost`, only when there are some). A value that is
 * not an object (invalid, but conversion runs before validation) has no fields to split and is shown as it is.
 */
export function splitFields(value: unknown, known: readonly string[]): { shown: unknown; lost?: Record<string, unknown> } {
  if (!isPlainObject(value)) return { shown: value };
  const shown: Record<string, unknown> = {};
  const lost: Record<string, unknown> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    (known.includes(field) ? shown : lost)[field] = fieldValue;
  }
  return Object.keys(lost).length > 0 ? { shown, lost } : { shown };
}
