import { isPlainObject } from '../contract/values/kube-object.ts';

// The building blocks of a lossless conversion between versions that hold different fields: split what a version
// can show from what it cannot (which travels in the stash), put the stash back under what the version shows, and
// build objects from fields that may be absent without writing undefined into them.

/**
 * The fields of `value` a version has (`shown`) and the others (`lost`, only when there are some). A value that is
 * not an object (invalid, but conversion runs before validation) has no fields to split and is shown as it is.
 */
export function splitFields(
  value: unknown,
  known: readonly string[],
): { shown: unknown; lost?: Record<string, unknown> } {
  if (!isPlainObject(value)) return { shown: value };
  const shown: Record<string, unknown> = {};
  const lost: Record<string, unknown> = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    (known.includes(field) ? shown : lost)[field] = fieldValue;
  }
  return Object.keys(lost).length > 0 ? { shown, lost } : { shown };
}

/**
 * Lays `shown` over `lost`: objects merge field by field, and wherever both have a value that is not an object on
 * both sides, `shown` wins. A conversion up uses it to put back what an older version could not hold, under what
 * the older version shows, so that an edit made in the older version always beats a stale stash.
 * Neither argument is modified; the result shares unchanged parts with them.
 */
export function overlay(lost: unknown, shown: unknown): unknown {
  if (shown === undefined) return lost;
  if (!isPlainObject(lost) || !isPlainObject(shown)) return shown;
  const merged: Record<string, unknown> = { ...lost };
  for (const [key, value] of Object.entries(shown)) merged[key] = overlay(lost[key], value);
  return merged;
}

/**
 * The fields whose value is not undefined. A conversion builds objects from fields that may be absent; JSON has no
 * undefined, and deep equality and `in` tell an undefined-valued field from an absent one, so absent stays absent.
 */
export function presentFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const present: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) present[key] = value;
  }
  return present;
}
