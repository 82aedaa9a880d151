import { isPlainObject } from '../contract/kube-object.ts';

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
