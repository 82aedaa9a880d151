import type { SchemaObject } from 'ajv';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { isCrdgateOwnFormat, isKnownFormat } from './kubernetes-formats.ts';
import { listUniquenessKeyword, type ListUniqueness } from './list-uniqueness.ts';
import { isSatisfiableBound, unsatisfiableBound, unsatisfiableBoundKeyword } from './unsatisfiable-bound.ts';

/**
 * Translates a Kubernetes structural schema into a draft-07 JSON Schema whose answers are the API server's:
 * - pruning becomes `additionalProperties: false` (an unknown field is an error: the API server would silently
 *   drop it, which is how typos in manifests go unnoticed);
 * - `nullable`, `x-kubernetes-int-or-string` become type unions; OpenAPI's boolean `exclusiveMinimum` becomes
 *   draft-07's numeric one;
 * - apiVersion, kind and metadata are implicitly allowed at the root of a resource and of an embedded resource,
 *   and metadata's own fields are left to the API server;
 * - list types `set` and `map` become a uniqueness keyword; formats crdgate does not know are dropped.
 *
 * - allOf, anyOf, oneOf and not are not applied to null, as the API server's validator does not apply them.
 *
 * Deliberate differences: `x-kubernetes-preserve-unknown-fields` covers only the node that carries it, as in
 * Kubernetes (a nested schema with `properties` is pruned again). A null in a nullable field passes `enum`
 * too (the API server's go-openapi rejects it, a long-standing quirk; it validates before crdgate anyway).
 */
export function toAjvSchema(schema: JSONSchemaProps, options: { resourceRoot: boolean }): SchemaObject {
  return structuralNode(schema, { implicitObjectMeta: options.resourceRoot, unpruned: false });
}

interface NodePlace {
  /** At the root of a resource or of an embedded resource: apiVersion, kind and metadata need no declaration. */
  implicitObjectMeta: boolean;
  /** Metadata, whose unknown fields are the API server's business. */
  unpruned: boolean;
}

const nestedPlace: NodePlace = { implicitObjectMeta: false, unpruned: false };

function structuralNode(schema: JSONSchemaProps, place: NodePlace): SchemaObject {
  const node = valueValidations(schema);
  const types = structuralTypes(schema);
  if (types) setType(node, schema, types);
  if (schema.nullable && Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...node.enum, null];

  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const objectLike = isObjectLike(schema);
  const properties: Record<string, SchemaObject> = {};
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    properties[name] = structuralNode(child, nestedPlace);
  if (objectLike && (place.implicitObjectMeta || embedded)) {
    properties.apiVersion ??= { type: 'string' };
    properties.kind ??= { type: 'string' };
    properties.metadata = schema.properties?.metadata
      ? structuralNode(schema.properties.metadata, { implicitObjectMeta: false, unpruned: true })
      : { type: 'object' };
  }
  if (Object.keys(properties).length > 0) node.properties = properties;

  const required = [...(schema.required ?? []), ...(embedded ? ['apiVersion', 'kind'] : [])];
  if (required.length > 0) node.required = [...new Set(required)];

  if (schema.items) node.items = structuralNode(schema.items, nestedPlace);

  const { additionalProperties } = schema;
  if (typeof additionalProperties === 'object')
    node.additionalProperties = structuralNode(additionalProperties, nestedPlace);
  else if (additionalProperties !== undefined) node.additionalProperties = additionalProperties;
  else if (objectLike && !place.unpruned && schema['x-kubernetes-preserve-unknown-fields'] !== true)
    node.additionalProperties = false;

  const uniqueness = listUniqueness(schema);
  if (uniqueness) node[listUniquenessKeyword] = uniqueness;

  // Only a typed node refuses null before its junctors run (nullable or untyped, it lets null through).
  addJunctors(schema, node, types === undefined || types.includes('null'));
  return node;
}

/**
 * Inside allOf, anyOf, oneOf and not, a structural schema only constrains values: no types of its own, no
 * pruning, no extensions. (A `type` there is not structural; it is honoured all the same.)
 */
function valueValidationNode(schema: JSONSchemaProps): SchemaObject {
  const node = valueValidations(schema);
  if (schema.type) setType(node, schema, [schema.type]);
  if (schema.properties) {
    node.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, child]) => [name, valueValidationNode(child)]),
    );
  }
  if (schema.required) node.required = [...schema.required];
  if (schema.items) node.items = valueValidationNode(schema.items);
  if (typeof schema.additionalProperties === 'object')
    node.additionalProperties = valueValidationNode(schema.additionalProperties);
  addJunctors(schema, node, schema.type === undefined);
  return node;
}

/**
 * The API server's validator checks a null only against the type (and enum): allOf, anyOf, oneOf and not are
 * never asked. So where null gets past the type (a nullable field, say a nullable int-or-string whose anyOf names
 * integer and string), the junctors apply to every other value only.
 */
function addJunctors(schema: JSONSchemaProps, node: SchemaObject, nullPassesType: boolean): void {
  const junctors: SchemaObject = {};
  // An empty allOf, anyOf or oneOf constrains nothing for the API server (it asks one that lists schemas), and JSON
  // Schema refuses it.
  if (schema.allOf?.length) junctors.allOf = schema.allOf.map(valueValidationNode);
  if (schema.anyOf?.length) junctors.anyOf = schema.anyOf.map(valueValidationNode);
  if (schema.oneOf?.length) junctors.oneOf = schema.oneOf.map(valueValidationNode);
  if (schema.not) junctors.not = valueValidationNode(schema.not);
  if (Object.keys(junctors).length === 0) return;
  if (nullPassesType) {
    node.if = { type: 'null' };
    node.else = junctors;
  } else {
    Object.assign(node, junctors);
  }
}

function valueValidations(schema: JSONSchemaProps): SchemaObject {
  const node: SchemaObject = {};
  // An empty enum constrains nothing for the API server (it checks one that lists values), and JSON Schema refuses it.
  if (schema.enum && schema.enum.length > 0) node.enum = [...schema.enum];
  if (schema.format !== undefined && isKnownFormat(schema.format)) node.format = schema.format;
  if (schema.pattern !== undefined) node.pattern = schema.pattern;
  if (schema.minimum !== undefined) node[schema.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum'] = schema.minimum;
  if (schema.maximum !== undefined) node[schema.exclusiveMaximum ? 'exclusiveMaximum' : 'maximum'] = schema.maximum;
  const bounds = [
    'minLength',
    'maxLength',
    'multipleOf',
    'minItems',
    'maxItems',
    'minProperties',
    'maxProperties',
  ] as const;
  for (const keyword of bounds) {
    const value = schema[keyword];
    if (value !== undefined && isSatisfiableBound(keyword, value)) node[keyword] = value;
  }
  const unsatisfiable = unsatisfiableBound(schema);
  if (unsatisfiable) node[unsatisfiableBoundKeyword] = unsatisfiable;
  return node;
}

/**
 * The node's type, as kube-apiserver's validator (kube-openapi's validate/type.go) checks it: a JSON string or array
 * passes any declared type but integer and number when the schema names a format, so `type: string, format: byte`
 * takes `[1, 2]` and kube-apiserver stores it (its format and string checks look at strings only, as ajv's do).
 * crdgate's own formats, which the API server does not check at all, keep the declared type: they are crdgate's
 * rules. `declaredType` keeps the declared type for the messages, which name what the schema asks for.
 */
function setType(node: SchemaObject, schema: JSONSchemaProps, declared: string[]): void {
  const format = schema.format ?? '';
  const lenient =
    format !== '' && !isCrdgateOwnFormat(format) && !declared.includes('integer') && !declared.includes('number');
  const types = lenient ? [...new Set([...declared, 'string', 'array'])] : declared;
  node.type = types.length === 1 ? types[0] : types;
  if (types.length !== declared.length) node.declaredType = declared;
}

function structuralTypes(schema: JSONSchemaProps): string[] | undefined {
  const types = schema['x-kubernetes-int-or-string'] ? ['integer', 'string'] : schema.type ? [schema.type] : undefined;
  // Without a type any value is allowed, null included, so nullable has nothing to add.
  return types && schema.nullable ? [...types, 'null'] : types;
}

function isObjectLike(schema: JSONSchemaProps): boolean {
  return (
    schema.type === 'object' ||
    (schema.type === undefined && !schema['x-kubernetes-int-or-string'] && schema.properties !== undefined)
  );
}

function listUniqueness(schema: JSONSchemaProps): ListUniqueness | undefined {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') return { listType };
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType === 'map' && keys && keys.length > 0) return { listType, keys: [...keys] };
  return undefined;
}
