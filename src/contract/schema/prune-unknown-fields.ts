import { isPlainObject } from '../values/kube-object.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

// What the API server does to an object it reads in a version, after a conversion (apiextensions' structural pruning):
// a field its structural schema does not declare is dropped, unless the schema keeps unknown fields there. A client of
// that version never sees such a field, and what it writes back cannot hold it. The engine prunes exactly as
// kube-apiserver does, object by object; this is the pure form for the decisions that compare a version's view of an
// object with the hub's (hidden-field-changes.ts), on schemas defineContract already held to be structural.

/** `object` (a whole custom object) as the version whose `schema` this is shows it: apiVersion, kind and metadata kept. */
export function pruneUnknownFields<T extends Record<string, unknown>>(object: T, schema: JSONSchemaProps): T {
  const { apiVersion, kind, metadata, ...content } = object;
  const kept = pruneValue(content, schema) as Record<string, unknown>;
  return {
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(kind === undefined ? {} : { kind }),
    ...(metadata === undefined ? {} : { metadata }),
    ...kept,
  } as T;
}

function pruneValue(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => pruneValue(item, schema.items));
  if (!isPlainObject(value)) return value;
  const keepsUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  const others = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = schema.properties?.[key];
    if (property !== undefined) kept[key] = pruneValue(item, property);
    else if (others !== undefined) kept[key] = pruneValue(item, others);
    else if (keepsUnknown || (embedded && ['apiVersion', 'kind', 'metadata'].includes(key))) kept[key] = item;
  }
  return kept;
}
