import { jsonEqual } from '../contract/values/json-equal.ts';
import { isPlainObject } from '../contract/values/kube-object.ts';

export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/**
 * The RFC 6902 patch that turns `before` into `after`. Objects are diffed key by key; an array is replaced whole
 * when its length changed (index arithmetic across inserts is where hand-written patches go wrong).
 */
export function createJsonPatch(before: unknown, after: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffInto(ops, before, after, '');
  return ops;
}

// One list for the whole walk: the mutating webhook diffs every object it defaults, on the hot path.
function diffInto(ops: JsonPatchOperation[], before: unknown, after: unknown, path: string): void {
  // Defaulters copy on write: a subtree they did not touch is the very same object, and needs no walk (nor a path).
  if (before === after) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) ops.push({ op: 'remove', path: `${path}/${escapePointer(key)}` });
    }
    for (const key of Object.keys(after)) {
      const value = after[key];
      if (!Object.hasOwn(before, key)) ops.push({ op: 'add', path: `${path}/${escapePointer(key)}`, value });
      else if (before[key] !== value) diffInto(ops, before[key], value, `${path}/${escapePointer(key)}`);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let index = 0; index < after.length; index++) {
      if (before[index] !== after[index]) diffInto(ops, before[index], after[index], `${path}/${index}`);
    }
    return;
  }
  if (!jsonEqual(before, after)) ops.push({ op: 'replace', path, value: after });
}

/** Applies a patch to a copy of `document`; used by tests and `crdgate check` to show the defaulted object. */
export function applyJsonPatch<T>(document: T, patch: readonly JsonPatchOperation[]): T {
  let root: unknown = structuredClone(document);
  for (const operation of patch) {
    const segments = operation.path === '' ? [] : operation.path.slice(1).split('/').map(unescapePointer);
    if (segments.length === 0) {
      if (operation.op === 'remove') throw new Error('cannot remove the document root');
      root = structuredClone(operation.value);
      continue;
    }
    const parent = segments.slice(0, -1).reduce<unknown>((node, key) => step(node, key, operation.path), root);
    const last = segments[segments.length - 1]!;
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value));
      else if (operation.op === 'replace') parent[index] = structuredClone(operation.value);
      else parent.splice(index, 1);
    } else if (isPlainObject(parent)) {
      if (operation.op === 'remove') delete parent[last];
      else {
        if (operation.op === 'replace' && !Object.hasOwn(parent, last))
          throw new Error(`replace of missing ${operation.path}`);
        // defineProperty, not assignment: a key named __proto__ is data here, never a prototype.
        Object.defineProperty(parent, last, {
          value: structuredClone(operation.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    } else {
      throw new Error(`patch path ${operation.path} does not exist`);
    }
  }
  return root as T;
}

function step(node: unknown, key: string, path: string): unknown {
  const next = Array.isArray(node)
    ? node[Number(key)]
    : isPlainObject(node) && Object.hasOwn(node, key)
      ? node[key]
      : undefined;
  if (next === undefined) throw new Error(`patch path ${path} does not exist`);
  return next;
}

function escapePointer(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replaceAll('~', '~0').replaceAll('/', '~1') : key;
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
