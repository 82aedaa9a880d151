import { valueAtSegments } from '../field-path.ts';

/**
 * A field's value with absence resolved: null counts as absent (the API server drops the nulls of non-nullable
 * fields anyway), and an absent field means `absentMeans`, so that writing a default explicitly is no change.
 * The path comes parsed: classifiers parse theirs once, when the contract is compiled, not on every request.
 */
export function fieldValue(value: unknown, path: ReadonlyArray<string | number>, absentMeans?: unknown): unknown {
  const found = valueAtSegments(value, path);
  return found === undefined || found === null ? absentMeans : found;
}
