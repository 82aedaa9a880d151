import { valueAtPath } from '../field-path.ts';

/**
 * A field's value with absence resolved: null counts as absent (the API server drops the nulls of non-nullable
 * fields anyway), and an absent field means `absentMeans`, so that writing a default explicitly is no change.
 */
export function fieldValue(value: unknown, path: string, absentMeans?: unknown): unknown {
  const found = valueAtPath(value, path);
  return found === undefined || found === null ? absentMeans : found;
}
