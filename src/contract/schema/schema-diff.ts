import { jsonEqual } from '../values/json-equal.ts';
import { isPlainObject } from '../values/kube-object.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

/**
 * One place where two structural schemas of the same version disagree: a field one of them has and the other has
 * not, or a keyword (type, bounds, enum, required, a list type, CEL rules...) that differs on a field both have.
 */
export interface SchemaDifference {
  /** The field, in the words `kubectl explain` uses: `spec.storage.size`, `spec.conditions[*].type`; '' is the root. */
  path: string;
  /** `added`: only the second schema has the field; `removed`: only the first has it; `changed`: both, unlike. */
  change: 'added' | 'removed' | 'changed';
  /** With `changed`: the keywords that differ, each as `keyword: first → second` (JSON, `absent` for none). */
  keywords?: string[];
}

/**
 * Keywords that document a field and do not change what the API server admits or stores: an operator's release
 * that rewords its descriptions is in step with a contract that kept the old words.
 */
const documentationKeywords = new Set(['description', 'title', 'example', 'externalDocs']);
/** Compared by descending into them, not as one value. */
const nestedKeywords = new Set(['properties', 'items', 'additionalProperties']);

/**
 * Where `second` differs from `first`, in document order (the first schema's fields first, then those only the
 * second has), each field reported once: a field only one schema has is not descended into. Pure; both schemas are
 * read, never changed. Empty when they admit and store the same objects as far as their keywords say.
 */
export function diffSchemas(first: JSONSchemaProps, second: JSONSchemaProps): SchemaDifference[] {
  const differences: SchemaDifference[] = [];
  compareNodes(first, second, '', differences);
  return differences;
}

function compareNodes(first: JSONSchemaProps, second: JSONSchemaProps, path: string, out: SchemaDifference[]): void {
  const keywords: string[] = [];
  for (const keyword of unionKeys(first, second)) {
    if (documentationKeywords.has(keyword) || nestedKeywords.has(keyword)) continue;
    const a = (first as Record<string, unknown>)[keyword];
    const b = (second as Record<string, unknown>)[keyword];
    if (!jsonEqual(a, b)) keywords.push(`${keyword}: ${shown(a)} → ${shown(b)}`);
  }
  // additionalProperties: a schema on both sides is compared field by field; `true`/`false`/absent as a keyword.
  const [mapA, mapB] = [first.additionalProperties, second.additionalProperties];
  if (isPlainObject(mapA) && isPlainObject(mapB)) {
    // Compared below, after this node's own keywords.
  } else if (!jsonEqual(mapA, mapB)) {
    keywords.push(`additionalProperties: ${shownSchema(mapA)} → ${shownSchema(mapB)}`);
  }
  if (isPlainObject(first.items) !== isPlainObject(second.items))
    keywords.push(`items: ${shownSchema(first.items)} → ${shownSchema(second.items)}`);
  if (keywords.length > 0) out.push({ path, change: 'changed', keywords });

  const propsA = first.properties ?? {};
  const propsB = second.properties ?? {};
  for (const name of unionKeys(propsA, propsB)) {
    const child = joinPath(path, name);
    const a = Object.hasOwn(propsA, name) ? propsA[name] : undefined;
    const b = Object.hasOwn(propsB, name) ? propsB[name] : undefined;
    if (a === undefined) out.push({ path: child, change: 'added' });
    else if (b === undefined) out.push({ path: child, change: 'removed' });
    else compareNodes(a, b, child, out);
  }
  if (isPlainObject(first.items) && isPlainObject(second.items))
    compareNodes(first.items, second.items, `${path}[*]`, out);
  if (isPlainObject(mapA) && isPlainObject(mapB))
    compareNodes(mapA as JSONSchemaProps, mapB as JSONSchemaProps, `${path}[*]`, out);
}

/** The first object's keys in its order, then the second's it lacks. */
function unionKeys(a: object, b: object): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])];
}

function joinPath(path: string, name: string): string {
  // A name that is not an identifier is quoted as kubectl's JSONPath would need it.
  const segment = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) ? name : `[${JSON.stringify(name)}]`;
  if (path === '' || segment.startsWith('[')) return `${path}${segment}`;
  return `${path}.${segment}`;
}

function shown(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function shownSchema(value: unknown): string {
  return isPlainObject(value) ? '(a schema)' : shown(value);
}

/** `spec.x (added)`, `spec.y (changed: maximum: 10 → 20)`: one difference as a log line or a warning names it. */
export function describeSchemaDifference(difference: SchemaDifference): string {
  const where = difference.path === '' ? '(the root)' : difference.path;
  return difference.change === 'changed'
    ? `${where} (changed: ${difference.keywords?.join('; ')})`
    : `${where} (${difference.change})`;
}
