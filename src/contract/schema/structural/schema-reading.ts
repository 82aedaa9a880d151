import { isPlainObject } from '../../values/kube-object.ts';

// Reading a schema of unknown shape: the structural check is what vets a schema, so its reads trust no keyword's type.

export type Schema = Record<string, unknown>;

/** The fields the API server refuses, each with its reason; with any of them it cannot read a structural schema. */
export const unsupportedFields: ReadonlyArray<readonly [string, string]> = [
  ['id', 'id is not supported'],
  ['additionalItems', 'additionalItems is not supported'],
  ['patternProperties', 'patternProperties is not supported'],
  ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'],
  ['$ref', '$ref is not supported'],
];

/** Fields the API server would refuse to read a structural schema from. */
export function hasUnsupportedFields(s: Schema): boolean {
  return findsNode(s, (node) => {
    const unsupported = unsupportedFields.some(([key]) => node[key] !== undefined && !isZero(key, node[key]));
    return unsupported || hasSchemaUri(node) || (Array.isArray(node.items) && node.items.length > 0);
  });
}

/**
 * `$schema`: the API server's OpenAPI checks let it by, but it cannot read a structural schema with one (its
 * NewStructural, 'schema' is not supported), which it reports when nothing else is wrong.
 */
export function hasSchemaUri(node: Schema): boolean {
  return typeof node.$schema === 'string' && node.$schema !== '';
}

/** Whether some node of the schema, it included, satisfies `test`. */
export function findsNode(s: Schema, test: (node: Schema) => boolean): boolean {
  let found = false;
  const visit = (node: Schema): void => {
    if (found) return;
    if (test(node)) {
      found = true;
      return;
    }
    forEachChildSchema(node, visit);
  };
  visit(s);
  return found;
}

/** Calls `visit` with each schema directly below `s`, in the order the API server's walk takes them. */
function forEachChildSchema(s: Schema, visit: (child: Schema) => void): void {
  if (isPlainObject(s.properties))
    for (const property of Object.values(s.properties)) if (isPlainObject(property)) visit(property);
  for (const key of ['items', 'additionalProperties', 'not']) {
    const child = subschema(s, key);
    if (child) visit(child);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const branches = s[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isPlainObject(branch)) visit(branch);
  }
}

/** The schema under `key` (`items`, `not`, ...), when it is one. */
export function subschema(s: Schema, key: string): Schema | undefined {
  const value = s[key];
  return isPlainObject(value) ? value : undefined;
}

/** The schemas listed under `key` (`allOf`, `anyOf`, `oneOf`), those that are schemas. */
export function subschemas(s: Schema, key: string): readonly Schema[] {
  const value = s[key];
  // Most nodes have no junctors and no properties: one empty list for all of them, not one each, per walk.
  return Array.isArray(value) ? value.filter(isPlainObject) : none;
}

export function properties(s: Schema): ReadonlyArray<readonly [string, Schema]> {
  if (!isPlainObject(s.properties)) return none;
  return Object.entries(s.properties).filter((entry): entry is [string, Schema] => isPlainObject(entry[1]));
}

const none: readonly never[] = Object.freeze([]);

export function typeOf(s: Schema): string {
  return typeof s.type === 'string' ? s.type : '';
}

/** JSONSchemaProps' fields (apiextensions.k8s.io/v1): others are dropped when the API server decodes a schema. */
const schemaFields = new Set([
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'externalDocs',
  'example',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

export function isSchemaField(key: string): boolean {
  return schemaFields.has(key);
}

/**
 * Whether a field holds its Go zero value once the API server has decoded it, which is what its checks compare
 * against: false, "", null, and empty lists and maps where the decoded field is a list or map it only appends to.
 * (`required: []` is not zero: the API server keeps the empty list.)
 */
export function isZero(key: string, value: unknown): boolean {
  if (key === 'default' || key === 'example') return value === undefined;
  if (key === 'required') return value === undefined || value === null;
  if (value === undefined || value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value) && !keptWhenEmpty.has(key)) return Object.keys(value).length === 0;
  return false;
}

/** The fields the API server decodes into a pointer, so an empty map there is not zero. */
const keptWhenEmpty = new Set(['not', 'items', 'externalDocs', 'additionalProperties']);
