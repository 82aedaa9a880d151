import { isPlainObject } from './kube-object.ts';

/** `spec.caches[1].name` -> ['spec', 'caches', 1, 'name']; the inverse of how FieldError paths are written. */
export function parseFieldPath(path: string): Array<string | number> {
  // Most paths (all of a contract's own) are plain dotted names; only indexes and map keys need the full grammar.
  if (!path.includes('[')) return path === '' ? [] : path.split('.');
  const segments: Array<string | number> = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]|\[([^\]]*)\]/g)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(match[3]);
  }
  return segments;
}

/** The value at a field path, or undefined when any step is missing. */
export function valueAtPath(root: unknown, path: string): unknown {
  return valueAtSegments(root, parseFieldPath(path));
}

/** The value at the end of these steps, or undefined when any step is missing. */
export function valueAtSegments(root: unknown, segments: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof segment === 'number' ? !Array.isArray(node) : !isPlainObject(node)) return undefined;
    // Own properties only: a path segment like `constructor` must not reach into the prototype.
    if (!Object.hasOwn(node as object, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}
