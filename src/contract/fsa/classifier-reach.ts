import { parseFieldPath, type PathSegment } from '../values/field-path.ts';
import { isPlainObject } from '../values/kube-object.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import type { ClassifierTarget, ValueReading } from './classifier-form.ts';
import type { Classifier } from './machine.ts';

// Whether each classifier can see what its path may hold, held against the hub's schema when the contract is
// defined: a classifier reading a field the schema does not have, with a reader for another type, or comparing a
// list that is none, or by a key its items do not have, would report no change at all, whatever the update, and
// every change there would pass in silence. Only classifiers that say where they look (`target`: every classifier of
// the library's, and one written as a function that gives one) are checked, their paths and keys; a reader of one's
// own is not held to a type.

/** The schema shapes each library reader reads every value of (value-readers.table.test.ts holds them to the API server's answers). */
const readsShapes: Readonly<Record<ValueReading, readonly SchemaShape[]>> = {
  integer: ['integer'],
  string: ['string'],
  quantity: ['string', 'integer', 'int-or-string'],
  release: ['string'],
};

const readerNames: Readonly<Record<ValueReading, string>> = {
  integer: 'readInteger',
  string: 'readString',
  quantity: 'readQuantity',
  release: 'readRelease (or parseVersion)',
};

/** What a schema node holds, as far as a reader cares. */
export type SchemaShape =
  'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'int-or-string' | 'anything';

export function schemaShape(schema: JSONSchemaProps): SchemaShape {
  if (schema['x-kubernetes-int-or-string']) return 'int-or-string';
  const type = schema.type;
  if (
    type === 'string' ||
    type === 'integer' ||
    type === 'number' ||
    type === 'boolean' ||
    type === 'object' ||
    type === 'array'
  )
    return type;
  return 'anything'; // x-kubernetes-preserve-unknown-fields without a type
}

/** Why `reading` does not read every value a field of `schema` may hold (`readInteger, which reads ...`); undefined when it does. */
export function readingProblem(reading: ValueReading, schema: JSONSchemaProps): string | undefined {
  const shape = schemaShape(schema);
  const shapes = readsShapes[reading];
  if (shape === 'anything' || shapes.includes(shape)) return undefined;
  const fields = shapes.join(', ').replace(/, ([^,]*)$/, ' or $1');
  return `${readerNames[reading]}, which reads ${fields} fields only, but the hub schema says it is ${article(shape)}`;
}

function article(shape: SchemaShape): string {
  return shape === 'integer' || shape === 'int-or-string' || shape === 'object' || shape === 'array'
    ? `an ${shape}`
    : `a ${shape}`;
}

/** The schema at a path: found, anything at all (preserve-unknown-fields, additionalProperties: true), or missing and why. */
export type Reach = { schema: JSONSchemaProps } | { anything: true } | { missing: string };

/** Walks `segments` below `schema` as the API server prunes: declared properties, additionalProperties, embedded resources. */
export function schemaAtPath(schema: JSONSchemaProps, segments: readonly PathSegment[], at: string): Reach {
  let node = schema;
  let path = at;
  for (const segment of segments) {
    // A schema that is not even an object is the structural check's to report, not a classifier's problem.
    if (!isPlainObject(node)) return { anything: true };
    const next = childSchema(node, segment);
    if (next === undefined) return { missing: describeMissing(node, path, segment) };
    if (next === 'anything') return { anything: true };
    node = next;
    path = typeof segment === 'number' ? `${path}[*]` : path === '' ? segment : `${path}.${segment}`;
  }
  return isPlainObject(node) ? { schema: node } : { anything: true };
}

function childSchema(node: JSONSchemaProps, segment: PathSegment): JSONSchemaProps | 'anything' | undefined {
  if (typeof segment === 'number') return node.type === 'array' ? (node.items ?? 'anything') : undefined;
  if (isPlainObject(node.properties) && Object.hasOwn(node.properties, segment)) return node.properties[segment];
  if (node['x-kubernetes-embedded-resource']) {
    if (segment === 'apiVersion' || segment === 'kind') return { type: 'string' };
    if (segment === 'metadata') return 'anything';
  }
  if (schemaShape(node) !== 'object' && schemaShape(node) !== 'anything') return undefined;
  if (typeof node.additionalProperties === 'object') return node.additionalProperties;
  if (node.additionalProperties === true || node['x-kubernetes-preserve-unknown-fields']) return 'anything';
  return undefined;
}

function describeMissing(node: JSONSchemaProps, path: string, segment: PathSegment): string {
  const shape = schemaShape(node);
  const where = path === '' ? 'the object' : path;
  if (shape !== 'object') return `${where} is ${article(shape)}`;
  const declared = isPlainObject(node.properties) ? Object.keys(node.properties) : [];
  return declared.length === 0
    ? `${where} declares no fields`
    : `${where} declares ${shortList(declared)}, not ${String(segment)}`;
}

function shortList(names: readonly string[]): string {
  return names.length > 8 ? `${names.slice(0, 8).join(', ')} and ${names.length - 8} more` : names.join(', ');
}

/**
 * What is wrong with the machine's classifiers (they compare the spec) against the hub's schema, as sentences naming
 * each classifier's field and what the schema says there.
 */
export function classifierReachProblems(classifiers: unknown, hubSchema: JSONSchemaProps): string[] {
  if (!Array.isArray(classifiers) || typeof hubSchema !== 'object' || hubSchema === null) return [];
  const targets = classifiers
    .map((classifier) => (classifier as Partial<Classifier<string>> | undefined)?.target)
    .filter(isTarget);
  if (targets.length === 0) return [];
  const spec = schemaAtPath(hubSchema, ['spec'], '');
  if ('missing' in spec)
    return [`the classifiers compare the spec, which the hub schema does not have: ${spec.missing}`];
  return 'anything' in spec ? [] : targets.flatMap((target) => targetProblems(target, spec.schema, 'spec'));
}

function isTarget(value: unknown): value is ClassifierTarget {
  if (typeof value !== 'object' || value === null) return false;
  const target = value as Partial<Record<string, unknown>>;
  if (typeof target['path'] !== 'string') return false;
  if (target['classify'] === 'field') return typeof target['reading'] === 'string';
  return target['classify'] === 'keyed-list' && Array.isArray(target['keys']) && Array.isArray(target['items']);
}

function targetProblems(target: ClassifierTarget, schema: JSONSchemaProps, at: string): string[] {
  const field = `${at}.${target.path}`;
  const reach = schemaAtPath(schema, parseFieldPath(target.path), at);
  const what = target.classify === 'field' ? 'a classifier reads' : 'a keyed list classifier compares';
  if ('missing' in reach) return [`${what} ${field}, which the hub schema does not have: ${reach.missing}`];
  if ('anything' in reach) return [];
  if (target.classify === 'field') {
    if (target.reading === 'custom' || !Object.hasOwn(readsShapes, target.reading)) return [];
    const problem = readingProblem(target.reading, reach.schema);
    return problem === undefined ? [] : [`a classifier reads ${field} with ${problem}`];
  }
  return listProblems(target, reach.schema, field);
}

function listProblems(
  target: Extract<ClassifierTarget, { classify: 'keyed-list' }>,
  list: JSONSchemaProps,
  field: string,
): string[] {
  const shape = schemaShape(list);
  if (shape === 'anything') return [];
  if (shape !== 'array')
    return [`a keyed list classifier compares ${field}, which the hub schema says is ${article(shape)}, not a list`];
  const items = list.items;
  if (!isPlainObject(items) || schemaShape(items) === 'anything') return [];
  const problems: string[] = [];
  const keys = target.keys.filter((key): key is string => typeof key === 'string');
  if (keys.length === 0) problems.push(`a keyed list classifier compares ${field} by no key`);
  for (const key of keys) {
    const reach = schemaAtPath(items, [key], `${field}[*]`);
    if ('missing' in reach)
      problems.push(`a keyed list classifier keys ${field} by ${key}, which its items do not have: ${reach.missing}`);
  }
  const declaredKeys: unknown =
    list['x-kubernetes-list-type'] === 'map' ? list['x-kubernetes-list-map-keys'] : undefined;
  const mapKeys = Array.isArray(declaredKeys)
    ? declaredKeys.filter((key): key is string => typeof key === 'string')
    : [];
  const unmatched = mapKeys.filter((key) => !keys.includes(key));
  if (problems.length === 0 && unmatched.length > 0) {
    problems.push(
      `a keyed list classifier keys ${field} by ${keys.join(', ')}, but the hub schema keys its items by ${mapKeys.join(', ')}: ` +
        'items that differ only in ' +
        unmatched.join(', ') +
        ' could not be told apart',
    );
  }
  for (const item of target.items) {
    if (isTarget(item)) problems.push(...targetProblems(item, items, `${field}[*]`));
  }
  return problems;
}
