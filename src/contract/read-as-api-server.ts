import { isPlainObject, setOwn } from './values/kube-object.ts';

// kube-apiserver reads a CRD into Go types (apiextensions.k8s.io/v1), where a JSON null is a field left out: a
// pointer, list, map or string set to null reads as unset, and a null where a list or map holds schemas reads as an
// empty schema. crdgate refuses null where it writes a schema itself (it would render it); fromCrd takes a CRD
// someone else wrote, so it reads each version as the API server does. Values a schema holds as data (default,
// example, enum's entries) are JSON, nulls and all.

const schemaData = new Set(['default', 'example', 'enum']);
const schemaMaps = new Set(['properties', 'patternProperties', 'definitions']);
const schemaLists = new Set(['allOf', 'anyOf', 'oneOf']);
const schemaOrFlag = new Set(['additionalProperties', 'additionalItems', 'not', 'items']);
const stringLists = new Set(['required', 'x-kubernetes-list-map-keys']);

/** An openAPIV3Schema as kube-apiserver reads it: a copy, nulls read as Go reads them. */
export function schemaAsRead(schema: unknown): unknown {
  if (!isPlainObject(schema)) return structuredClone(schema);
  // Loops rather than entries and fromEntries: this copies every node of an operator's CRD, at start-up.
  const read: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    if (value === null) continue;
    let copy: unknown;
    if (schemaData.has(key)) copy = structuredClone(value);
    else if (schemaMaps.has(key) && isPlainObject(value)) {
      const map: Record<string, unknown> = {};
      for (const name of Object.keys(value)) setOwn(map, name, nestedSchema(value[name]));
      copy = map;
    } else if ((schemaLists.has(key) || key === 'items') && Array.isArray(value)) copy = value.map(nestedSchema);
    else if (schemaOrFlag.has(key)) copy = schemaAsRead(value);
    else if (stringLists.has(key) && Array.isArray(value)) copy = value.map((entry) => entry ?? '');
    else if (key === 'x-kubernetes-validations' && Array.isArray(value))
      copy = value.map((rule: unknown) => withoutNullFields(rule ?? {}));
    else copy = withoutNullFields(value);
    setOwn(read, key, copy);
  }
  return read;
}

function nestedSchema(child: unknown): unknown {
  return child === null ? {} : schemaAsRead(child);
}

/**
 * The fields of a CRD version's printer columns, subresources and selectable fields, as Go's types have them: the
 * API server reads any other field as nothing (and stores the CRD without it).
 */
const versionPartFields = {
  printerColumn: ['name', 'type', 'format', 'description', 'priority', 'jsonPath'],
  scale: ['specReplicasPath', 'statusReplicasPath', 'labelSelectorPath'],
  selectableField: ['jsonPath'],
} as const;

/** A version's additionalPrinterColumns as the API server reads them: known fields only, nulls left out. */
export function printerColumnsAsRead(columns: readonly unknown[]): unknown[] {
  return columns.map((column) => knownFields(column, versionPartFields.printerColumn));
}

/** A version's selectableFields as the API server reads them. */
export function selectableFieldsAsRead(fields: readonly unknown[]): unknown[] {
  return fields.map((field) => knownFields(field, versionPartFields.selectableField));
}

/** A version's subresources as the API server reads them: status is on or off (it has no fields), scale its paths. */
export function subresourcesAsRead(subresources: unknown): Record<string, unknown> {
  if (!isPlainObject(subresources)) return {};
  const read: Record<string, unknown> = {};
  if (isPlainObject(subresources['status'])) read['status'] = {};
  if (isPlainObject(subresources['scale'])) read['scale'] = knownFields(subresources['scale'], versionPartFields.scale);
  return read;
}

function knownFields(value: unknown, fields: readonly string[]): unknown {
  if (!isPlainObject(value)) return value ?? {};
  return Object.fromEntries(
    fields.filter((field) => value[field] !== undefined && value[field] !== null).map((field) => [field, value[field]]),
  );
}

/** A value as the API server reads it where nothing of it is data: a copy, every field set to null left out. */
function withoutNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullFields);
  if (!isPlainObject(value)) return structuredClone(value);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null)
      .map(([key, field]) => [key, withoutNullFields(field)]),
  );
}
