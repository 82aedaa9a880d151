import { renderFieldPath, type PathSegment } from '../../contract/values/field-path.ts';
import { isPlainObject, type KubeObject } from '../../contract/values/kube-object.ts';
import { compareCrdRevisions } from '../compare/compare-crd-revisions.ts';
import { asSchemaPath, isAtOrUnder } from '../schema/schema-path.ts';
import type { CrdRevisionRule } from '../rules.ts';

/**
 * The writes an operator and its users make every day, as the revision's observations make them: the operator's own
 * status write, which changes one status field, and a user's spec write, which changes one spec field unrelated to
 * the revision. Which field, and to what, is chosen from the object and its version's schema alone (no engine), so
 * that the prediction and an observation on a real API server make the very same write.
 */
export interface OneFieldChange {
  /** The object as the write sends it. */
  object: KubeObject;
  /** The field changed, as the API server names fields (`status.conditions[0].message`). */
  path: string;
  segments: PathSegment[];
  old: unknown;
  new: unknown;
}

type Schema = Record<string, unknown>;

/** Rules about what a field's text or its place in kubectl says, not what values it takes. */
const wordingRules: ReadonlySet<CrdRevisionRule> = new Set([
  'description',
  'validationRuleMessageChanged',
  'printerColumnAdded',
  'printerColumnChanged',
  'printerColumnRemoved',
  'selectableFieldAdded',
  'selectableFieldRemoved',
]);

/**
 * The fields a revision changes the rules of (every schema rule's path but the root, `[*]` for any item; changes of
 * wording left out): a write meant to be unrelated to the revision changes none of them, nor anything below them.
 */
export function revisionChangedPaths(oldCrd: unknown, newCrd: unknown): string[] {
  const paths = compareCrdRevisions(oldCrd, newCrd)
    .filter((finding) => !wordingRules.has(finding.rule))
    .map((finding) => finding.path)
    .filter((path): path is string => path !== undefined && path !== '');
  return [...new Set(paths)];
}

/**
 * The object with one value under `under` (its first, depth first, names in sorted order) changed to another
 * that the version's schema takes as far as its keywords say: a boolean flipped, another value of an enum, a string
 * one character longer (or its last character replaced at its maxLength), a number one step (or one multipleOf)
 * up or down within its bounds. Passed over: values under `avoid` (the revision's own fields), list-map keys and the
 * items of sets (changing one makes another item), values with a pattern or format, int-or-string values, embedded
 * resources, values the schema does not declare, and values under a transition rule (one that reads oldSelf may
 * forbid any change, the revision or not). Undefined when no value qualifies.
 */
export function withOneFieldChanged(
  object: KubeObject,
  schema: unknown,
  under: 'spec' | 'status',
  avoid: readonly string[] = [],
): OneFieldChange | undefined {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
  const root = schema.properties[under];
  const value = object[under];
  if (!isPlainObject(root) || value === undefined) return undefined;
  const found = firstChangeable(value, root, [under], avoid);
  if (found === undefined) return undefined;
  const changed = withValueAt(object, found.segments, found.new)!;
  return {
    object: changed,
    path: renderFieldPath('', found.segments),
    segments: found.segments,
    old: found.old,
    new: found.new,
  };
}

/** A copy of the object with `value` at `segments`; undefined when the object has no such field to set. */
export function withValueAt(
  object: KubeObject,
  segments: readonly PathSegment[],
  value: unknown,
): KubeObject | undefined {
  const copy = structuredClone(object);
  let node: unknown = copy;
  for (const segment of segments.slice(0, -1)) {
    if (typeof segment === 'number' ? !Array.isArray(node) : !isPlainObject(node)) return undefined;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  const last = segments.at(-1);
  if (last === undefined || (typeof last === 'number' ? !Array.isArray(node) : !isPlainObject(node))) return undefined;
  if (!Object.hasOwn(node as object, last)) return undefined;
  (node as Record<PathSegment, unknown>)[last] = value;
  return copy;
}

interface Found {
  segments: PathSegment[];
  old: unknown;
  new: unknown;
}

function firstChangeable(
  value: unknown,
  schema: Schema,
  segments: PathSegment[],
  avoid: readonly string[],
): Found | undefined {
  const path = renderFieldPath('', segments);
  const schemaPath = asSchemaPath(path);
  if (avoid.some((changed) => isAtOrUnder(schemaPath, changed))) return undefined;
  if (readsOldSelf(schema) || schema['x-kubernetes-embedded-resource'] === true) return undefined;
  if (schema['x-kubernetes-int-or-string'] === true) return undefined;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isPlainObject(items)) return undefined;
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') return undefined;
    const keys =
      listType === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])
        ? schema['x-kubernetes-list-map-keys']
        : [];
    for (const [index, item] of value.entries()) {
      const found =
        isPlainObject(item) && keys.length > 0
          ? firstInObject(item, items, [...segments, index], avoid, keys as unknown[])
          : firstChangeable(item, items, [...segments, index], avoid);
      if (found) return found;
    }
    return undefined;
  }
  if (isPlainObject(value)) return firstInObject(value, schema, segments, avoid, []);
  const changed = changedScalar(value, schema);
  return changed === undefined ? undefined : { segments, old: value, new: changed.value };
}

function firstInObject(
  value: Record<string, unknown>,
  schema: Schema,
  segments: PathSegment[],
  avoid: readonly string[],
  keys: readonly unknown[],
): Found | undefined {
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  const map = isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  // In the order of the names, not of the object's keys: the API server answers with its keys sorted, a manifest
  // in its own order, and both must choose the same value.
  for (const name of Object.keys(value).sort()) {
    const child = value[name];
    if (keys.includes(name)) continue;
    const childSchema = properties && Object.hasOwn(properties, name) ? properties[name] : map;
    if (!isPlainObject(childSchema)) continue;
    const found = firstChangeable(child, childSchema, [...segments, name], avoid);
    if (found) return found;
  }
  return undefined;
}

function readsOldSelf(schema: Schema): boolean {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) && rules.some((rule) => isPlainObject(rule) && /\boldSelf\b/.test(String(rule.rule)));
}

/** Another value the keywords of `schema` take, or undefined when none is sure to be taken. */
function changedScalar(value: unknown, schema: Schema): { value: unknown } | undefined {
  if (Array.isArray(schema.enum)) {
    const other = schema.enum.find((candidate) => candidate !== value && typeof candidate === typeof value);
    return other === undefined ? undefined : { value: other };
  }
  if (typeof value === 'boolean') return { value: !value };
  if (typeof value === 'string') {
    if (schema.pattern !== undefined || schema.format !== undefined) return undefined;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
    if (value.length < maxLength) return { value: `${value}x` };
    if (value.length === 0) return undefined;
    const last = value.at(-1) === 'x' ? 'y' : 'x';
    return { value: `${value.slice(0, -1)}${last}` };
  }
  if (typeof value === 'number') {
    const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : 1;
    const within = (candidate: number) =>
      (schema.type !== 'integer' || Number.isSafeInteger(candidate)) &&
      (typeof schema.maximum !== 'number' ||
        (schema.exclusiveMaximum === true ? candidate < schema.maximum : candidate <= schema.maximum)) &&
      (typeof schema.minimum !== 'number' ||
        (schema.exclusiveMinimum === true ? candidate > schema.minimum : candidate >= schema.minimum));
    const next = [value + step, value - step].find(within);
    return next === undefined ? undefined : { value: next };
  }
  return undefined;
}
