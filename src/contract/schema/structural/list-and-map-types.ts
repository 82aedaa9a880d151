import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type FieldError,
} from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import { properties, subschema, typeOf, type Schema } from './schema-reading.ts';

// x-kubernetes-map-type, x-kubernetes-list-type and x-kubernetes-list-map-keys: which node may carry them, with
// which values, and what a set's or a map's items must then be.

export function checkMapType(s: Schema, path: string, problems: FieldError[]): void {
  const mapType = s['x-kubernetes-map-type'];
  if (mapType === undefined || mapType === null) return;
  const type = typeOf(s);
  if (type !== 'object') {
    const why = 'must be object if x-kubernetes-map-type is specified';
    const at = `${path}.type`;
    problems.push(type === '' ? fieldRequired(at, why) : fieldInvalid(at, describeInFull(type), why));
  }
  if (mapType !== 'atomic' && mapType !== 'granular') {
    problems.push(fieldNotSupported(`${path}.x-kubernetes-map-type`, describeInFull(mapType), ['atomic', 'granular']));
  }
}

export function checkListType(s: Schema, path: string, problems: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  const hasListType = listType !== undefined && listType !== null;
  const type = typeOf(s);
  const items = subschema(s, 'items');
  if (hasListType && type !== 'array') {
    const why = 'must be array if x-kubernetes-list-type is specified';
    const at = `${path}.type`;
    problems.push(type === '' ? fieldRequired(at, why) : fieldInvalid(at, describeInFull(type), why));
  } else if (listType === 'set' && items) {
    // A set's items are compared whole, so they must be atomic.
    const why = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemsListType = items['x-kubernetes-list-type'];
    if (items.type === 'array' && itemsListType !== undefined && itemsListType !== 'atomic') {
      problems.push(fieldInvalid(`${path}.items.x-kubernetes-list-type`, describeInFull(itemsListType), why));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // The API server shows the items' list type here, not their map type.
      problems.push(fieldInvalid(`${path}.items.x-kubernetes-map-type`, describeInFull(itemsListType ?? null), why));
    }
  }
  if (hasListType && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    const at = `${path}.x-kubernetes-list-type`;
    problems.push(fieldNotSupported(at, describeInFull(listType), ['atomic', 'set', 'map']));
  }

  const keys = listMapKeys(s);
  if (keys.length > 0) {
    const why = 'must be map if x-kubernetes-list-map-keys is non-empty';
    const at = `${path}.x-kubernetes-list-type`;
    if (!hasListType) problems.push(fieldRequired(at, why));
    else if (listType !== 'map') problems.push(fieldInvalid(at, describeInFull(listType), why));
  }
  if (listType !== 'map') return;
  if (keys.length === 0) {
    const why = 'must not be empty if x-kubernetes-list-type is map';
    problems.push(fieldRequired(`${path}.x-kubernetes-list-map-keys`, why));
  }
  if (s.items === undefined || s.items === null) {
    problems.push(fieldRequired(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
  } else if (!items) {
    const why = 'must only have a single schema if x-kubernetes-list-type is map';
    problems.push(fieldInvalid(`${path}.items`, describeInFull(s.items), why));
  }
  if (!items) return;
  if (items.type !== 'object') {
    const why = "must be object if parent array's x-kubernetes-list-type is map";
    problems.push(fieldInvalid(`${path}.items.type`, describeInFull(typeOf(items)), why));
    return;
  }
  const itemProperties = new Map(properties(items));
  const seen = new Set<unknown>();
  for (const key of keys) {
    const property = itemProperties.get(String(key));
    if (!property) {
      const why = 'entries must all be names of item properties';
      problems.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, describeInFull(keys), why));
    } else if (property.type === 'array' || property.type === 'object') {
      // The API server shows the items' type here, not the key's.
      const why = "must be a scalar type if parent array's x-kubernetes-list-type is map";
      problems.push(fieldInvalid(`${path}.items.properties[${String(key)}].type`, describeInFull('object'), why));
    }
    if (seen.has(key)) {
      const why = 'must not contain duplicate entries';
      problems.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, describeInFull(keys), why));
    }
    seen.add(key);
  }
}

/** A set's and a map's items, and a map's keys: never nullable, and each key required or defaulted. */
export function checkMapListKeysMapSet(s: Schema, path: string, problems: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'];
  const items = subschema(s, 'items');
  if (!items || (listType !== 'set' && listType !== 'map')) return;
  if (items.nullable === true) {
    const why = `cannot be nullable when x-kubernetes-list-type is ${listType}`;
    problems.push(fieldForbidden(`${path}.items.nullable`, why));
  }
  if (listType !== 'map') return;
  const required = new Set(Array.isArray(items.required) ? items.required : []);
  const itemProperties = new Map(properties(items));
  for (const key of listMapKeys(s)) {
    const property = itemProperties.get(String(key));
    if (!property) continue;
    const at = `${path}.items.properties[${String(key)}]`;
    if (!required.has(key) && property.default === undefined) {
      const why = 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property';
      problems.push(fieldRequired(`${at}.default`, why));
    }
    if (property.nullable === true) {
      const why = 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable';
      problems.push(fieldForbidden(`${at}.nullable`, why));
    }
  }
}

function listMapKeys(s: Schema): unknown[] {
  const keys = s['x-kubernetes-list-map-keys'];
  return Array.isArray(keys) ? (keys as unknown[]) : [];
}
