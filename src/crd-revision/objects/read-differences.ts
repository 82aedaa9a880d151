import { jsonEqual } from '../../contract/values/json-equal.ts';
import { renderFieldPath } from '../../contract/values/field-path.ts';
import { isPlainObject, type KubeObject } from '../../contract/values/kube-object.ts';

/** A value that reads differently: gone (`new` absent), new (`old` absent), or changed. */
export interface ReadDifference {
  path: string;
  old?: unknown;
  new?: unknown;
}

/**
 * Where two reads of one object differ, outside apiVersion, kind and metadata (which no schema prunes or
 * defaults): the highest field that is gone or new, and each value that changed. A list is one value: the API
 * server prunes and defaults inside list items, but a list that differs is reported whole.
 */
export function readDifferences(before: KubeObject, after: KubeObject): ReadDifference[] {
  const strip = ({ apiVersion: _a, kind: _k, metadata: _m, ...rest }: KubeObject) => rest;
  const out: ReadDifference[] = [];
  walk(strip(before), strip(after), '', out);
  return out;
}

function walk(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  path: string,
  out: ReadDifference[],
): void {
  for (const [key, old] of Object.entries(before)) {
    const child = renderFieldPath(path, [key]);
    if (!Object.hasOwn(after, key)) out.push({ path: child, old });
    else if (isPlainObject(old) && isPlainObject(after[key])) walk(old, after[key], child, out);
    else if (!jsonEqual(old, after[key])) out.push({ path: child, old, new: after[key] });
  }
  for (const [key, value] of Object.entries(after))
    if (!Object.hasOwn(before, key)) out.push({ path: renderFieldPath(path, [key]), new: value });
}
