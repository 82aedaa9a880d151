import type { JSONSchemaProps } from './json-schema-props.ts';

// A subset of the API server's structural-schema rules (apiextensions' structural/validation.go): the ones
// crdgate's translation relies on, so a contract that breaks them stops the server at start-up instead of
// validating differently from the API server. Paths are written the way the API server writes them.

const scalarTypes = new Set(['string', 'integer', 'number', 'boolean']);

/** Where the schema is not structural; empty when it is. */
export function checkStructural(schema: JSONSchemaProps): string[] {
  const problems: string[] = [];
  const root = 'openAPIV3Schema';
  if (schema.type !== 'object') problems.push(`${root}.type: must be object at the root`);
  checkStructuralNode(schema, root, problems);
  return problems;
}

function checkStructuralNode(schema: JSONSchemaProps, path: string, problems: string[]): void {
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserveUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.type === undefined && !intOrString && !preserveUnknown) {
    problems.push(`${path}.type: must not be empty unless x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true`);
  }
  if (intOrString && schema.type !== undefined) problems.push(`${path}.type: must be empty when x-kubernetes-int-or-string is true`);
  if (schema.properties && schema.additionalProperties !== undefined) {
    problems.push(`${path}.additionalProperties: must not be used together with properties`);
  }
  if (schema.type !== undefined && schema.type !== 'object') {
    for (const key of ['properties', 'additionalProperties'] as const) {
      if (schema[key] !== undefined) problems.push(`${path}.${key}: only objects have ${key}`);
    }
  }
  if (schema.type === 'array' && !schema.items) problems.push(`${path}.items: must be specified for an array`);
  if (schema.items && schema.type !== 'array') problems.push(`${path}.items: only arrays have items`);
  if (schema['x-kubernetes-embedded-resource'] && schema.type !== 'object') {
    problems.push(`${path}.type: must be object when x-kubernetes-embedded-resource is true`);
  }
  checkListType(schema, path, problems);
  checkPattern(schema, path, problems);

  for (const [name, child] of Object.entries(schema.properties ?? {})) checkStructuralNode(child, `${path}.properties[${name}]`, problems);
  if (schema.items) checkStructuralNode(schema.items, `${path}.items`, problems);
  if (typeof schema.additionalProperties === 'object') {
    checkStructuralNode(schema.additionalProperties, `${path}.additionalProperties`, problems);
  }
  checkJunctors(schema, path, problems);
}

function checkListType(schema: JSONSchemaProps, path: string, problems: string[]): void {
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType !== undefined && schema.type !== 'array') problems.push(`${path}.x-kubernetes-list-type: only for arrays`);
  if (keys !== undefined && listType !== 'map') {
    problems.push(`${path}.x-kubernetes-list-map-keys: only with x-kubernetes-list-type: map`);
  }
  if (listType !== 'map') return;
  if (!keys || keys.length === 0) {
    problems.push(`${path}.x-kubernetes-list-map-keys: must not be empty when x-kubernetes-list-type is map`);
    return;
  }
  const items = schema.items;
  if (items?.type !== 'object') {
    problems.push(`${path}.items.type: must be object when x-kubernetes-list-type is map`);
    return;
  }
  for (const key of keys) {
    const field = items.properties?.[key];
    const where = `${path}.x-kubernetes-list-map-keys`;
    if (!field) {
      problems.push(`${where}: "${key}" is not a property of the items`);
      continue;
    }
    const scalar = field['x-kubernetes-int-or-string'] === true || (field.type !== undefined && scalarTypes.has(field.type));
    if (!scalar) problems.push(`${where}: "${key}" must be a scalar field`);
    if (!items.required?.includes(key) && field.default === undefined) {
      problems.push(`${where}: "${key}" must be required or have a default`);
    }
  }
}

// The API server checks patterns with Go's RE2, crdgate with ECMAScript; a pattern only one of them understands
// would make them disagree, so at least refuse the ones crdgate cannot compile.
function checkPattern(schema: JSONSchemaProps, path: string, problems: string[]): void {
  if (schema.pattern === undefined) return;
  try {
    new RegExp(schema.pattern, 'u');
  } catch {
    problems.push(`${path}.pattern: not a valid ECMAScript regular expression`);
  }
}

function checkJunctors(schema: JSONSchemaProps, path: string, problems: string[]): void {
  for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
    schema[junctor]?.forEach((branch, index) => checkValueValidation(branch, `${path}.${junctor}[${index}]`, problems));
  }
  if (schema.not) checkValueValidation(schema.not, `${path}.not`, problems);
}

/** What may not appear inside allOf, anyOf, oneOf and not: anything beyond constraints on values. */
const forbiddenInValueValidation = [
  'type',
  'nullable',
  'default',
  'title',
  'description',
  'additionalProperties',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
] as const;

function checkValueValidation(schema: JSONSchemaProps, path: string, problems: string[]): void {
  for (const key of forbiddenInValueValidation) {
    if (schema[key] !== undefined) problems.push(`${path}.${key}: must not be used inside allOf, anyOf, oneOf or not`);
  }
  checkPattern(schema, path, problems);
  for (const [name, child] of Object.entries(schema.properties ?? {})) checkValueValidation(child, `${path}.properties[${name}]`, problems);
  if (schema.items) checkValueValidation(schema.items, `${path}.items`, problems);
  checkJunctors(schema, path, problems);
}
