import { describeText } from './describe-value.ts';

/** A step into a value: a key of an object or an index of an array. */
export type PathSegment = string | number;

/**
 * The steps of an ajv instancePath (a JSON pointer). Whether "1" is an index or a key depends on the data,
 * so the pointer is walked through it.
 */
export function pointerSegments(data: unknown, pointer: string): PathSegment[] {
  if (pointer === '') return [];
  const segments: PathSegment[] = [];
  let node = data;
  for (const escaped of pointer.slice(1).split('/')) {
    const key = escaped.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      const index = Number(key);
      segments.push(index);
      node = node[index];
    } else {
      segments.push(key);
      node = childOf(node, key);
    }
  }
  return segments;
}

export function childOf(node: unknown, key: PathSegment): unknown {
  if (Array.isArray(node)) return typeof key === 'number' ? node[key] : undefined;
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
  return (node as Record<string, unknown>)[key];
}

// Field names as Kubernetes writes them; anything else (label keys with dots or slashes, odd characters from
// hostile input) goes in brackets, escaped and shortened, as Kubernetes does for map keys.
const plainKey = /^[A-Za-z_$][\w$-]{0,62}$/;

/** A Kubernetes-style path: `spec.caches[1].name`, `metadata.labels[app.kubernetes.io/name]`. */
export function renderFieldPath(rootPath: string, segments: readonly PathSegment[]): string {
  let path = rootPath;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (plainKey.test(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `[${describeText(segment)}]`;
  }
  return path;
}
