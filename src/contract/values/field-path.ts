import { isPlainObject } from './kube-object.ts';
import { describeText } from './describe-value.ts';

// Field paths as Kubernetes writes them in errors (`spec.caches[1].name`, `metadata.labels[app.kubernetes.io/name]`):
// read, written and walked here alone, so that what one part of crdgate writes every other part reads back.

/** A step into a value: a key of an object or an index of an array. */
export type PathSegment = string | number;

/** A field name as Kubernetes writes it plainly; anything else goes in brackets. */
export const fieldNameSource = '[A-Za-z_$][\\w$-]*';

/** One step of a field path: a name (after a dot, or first), an index in brackets, or a map key in brackets. */
const stepPattern = /\.?([^.[\]]+)|\[(\d+)\]|\[([^\]]*)\]/g;

export interface FieldPathStep {
  value: PathSegment;
  /** Where the step ends in the path's text, so that the rest of a path can be kept exactly as it was written. */
  end: number;
}

/** The steps of a field path, each with where it ends in the text. */
export function fieldPathSteps(path: string): FieldPathStep[] {
  const steps: FieldPathStep[] = [];
  for (const match of path.matchAll(stepPattern)) {
    const end = match.index + match[0].length;
    if (match[1] !== undefined) steps.push({ value: match[1], end });
    else if (match[2] !== undefined) steps.push({ value: Number(match[2]), end });
    else steps.push({ value: match[3]!, end });
  }
  return steps;
}

/** `spec.caches[1].name` -> ['spec', 'caches', 1, 'name']; the inverse of renderFieldPath. */
export function parseFieldPath(path: string): PathSegment[] {
  // Most paths (all of a contract's own) are plain dotted names; only indexes and map keys need the full grammar.
  if (!path.includes('[')) return path === '' ? [] : path.split('.');
  return fieldPathSteps(path).map((step) => step.value);
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

/** The value at a field path, or undefined when any step is missing. */
export function valueAtPath(root: unknown, path: string): unknown {
  return valueAtSegments(root, parseFieldPath(path));
}

/** The value at the end of these steps, or undefined when any step is missing. */
export function valueAtSegments(root: unknown, segments: ReadonlyArray<PathSegment>): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof segment === 'number' ? !Array.isArray(node) : !isPlainObject(node)) return undefined;
    // Own properties only: a path segment like `constructor` must not reach into the prototype.
    if (!Object.hasOwn(node as object, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/** One step down: an index of an array, an own key of an object; undefined otherwise. */
export function childOf(node: unknown, key: PathSegment): unknown {
  if (Array.isArray(node)) return typeof key === 'number' ? node[key] : undefined;
  if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
  return (node as Record<string, unknown>)[key];
}
