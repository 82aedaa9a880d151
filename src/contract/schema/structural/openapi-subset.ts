import { isPlainObject } from '../../values/kube-object.ts';
import { fieldForbidden, fieldInvalid, fieldNotSupported, type FieldError } from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import { checkMapListKeysMapSet, checkListType, checkMapType } from './list-and-map-types.ts';
import { isZero, properties, subschema, subschemas, typeOf, unsupportedFields, type Schema } from './schema-reading.ts';
import { checkValidationRules } from './validation-rules.ts';

// The OpenAPI subset (the API server's apiextensions/validation/validation.go): no $ref, patternProperties and the
// like, no uniqueItems, properties and additionalProperties not together, defaults forbidden in metadata, and the
// extensions' own rules, at every node, junctors and unsupported fields included.

export interface Place {
  isRoot: boolean;
  /** Under the apiVersion, kind or metadata of a resource (the root, or an embedded resource). */
  insideResourceMeta: boolean;
  /** Why a default may not be set here, when it may not. */
  defaultsForbidden: string | undefined;
}

const openApiTypes = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const resourceMetaFields = new Set(['metadata', 'kind', 'apiVersion']);

export function openApiSchema(s: Schema, path: string, place: Place, problems: FieldError[]): void {
  standardValidation(s, path, place, problems);
  if (s.uniqueItems === true) {
    const why = 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic';
    problems.push(fieldForbidden(`${path}.uniqueItems`, why));
  }

  const declared = properties(s);
  // Below the root, a child's place is its parent's (one object for all, not one per node).
  const nested: Place = place.isRoot ? { ...place, isRoot: false } : place;
  if (s.additionalProperties !== undefined) {
    if (declared.length > 0 && s.additionalProperties !== true) {
      const why = 'additionalProperties and properties are mutual exclusive';
      problems.push(fieldForbidden(`${path}.additionalProperties`, why));
    }
    const additional = subschema(s, 'additionalProperties');
    if (additional) {
      const inner = place.insideResourceMeta
        ? { ...nested, defaultsForbidden: 'inside additionalProperties applying to object metadata' }
        : nested;
      openApiSchema(additional, `${path}.additionalProperties`, inner, problems);
    }
  }
  for (const [name, property] of declared) {
    let inner: Place = nested;
    if ((place.isRoot || s['x-kubernetes-embedded-resource'] === true) && resourceMetaFields.has(name)) {
      inner = { ...inner, insideResourceMeta: true };
      if (place.isRoot) inner = { ...inner, defaultsForbidden: `in top-level ${name}` };
    }
    openApiSchema(property, `${path}.properties[${name}]`, inner, problems);
  }
  const not = subschema(s, 'not');
  if (not) openApiSchema(not, `${path}.not`, nested, problems);
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    subschemas(s, junctor).forEach((branch, i) => openApiSchema(branch, `${path}.${junctor}[${i}]`, nested, problems));
  }
  if (isPlainObject(s.definitions)) {
    for (const [name, definition] of Object.entries(s.definitions)) {
      if (isPlainObject(definition)) openApiSchema(definition, `${path}.definitions[${name}]`, nested, problems);
    }
  }
  if (isPlainObject(s.items)) {
    openApiSchema(s.items, `${path}.items`, nested, problems);
  } else if (Array.isArray(s.items)) {
    s.items.forEach((item, i) => isPlainObject(item) && openApiSchema(item, `${path}.items[${i}]`, nested, problems));
  }
  if (isPlainObject(s.dependencies)) {
    for (const [name, dependency] of Object.entries(s.dependencies)) {
      if (isPlainObject(dependency)) openApiSchema(dependency, `${path}.dependencies[${name}]`, nested, problems);
    }
  }

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    const at = `${path}.x-kubernetes-preserve-unknown-fields`;
    problems.push(fieldInvalid(at, describeInFull(false), 'must be true or undefined'));
  }
  checkMapType(s, path, problems);
  checkListType(s, path, problems);
  checkMapListKeysMapSet(s, path, problems);
  checkValidationRules(s, path, problems);
}

function standardValidation(s: Schema, path: string, place: Place, problems: FieldError[]): void {
  const type = typeOf(s);
  if (type !== '' && !openApiTypes.includes(type)) {
    problems.push(fieldNotSupported(`${path}.type`, describeInFull(type), openApiTypes));
  }
  if (s.default !== undefined && place.defaultsForbidden !== undefined) {
    problems.push(fieldForbidden(`${path}.default`, `must not be set ${place.defaultsForbidden}`));
  }
  for (const [key, detail] of unsupportedFields) {
    if (s[key] !== undefined && !isZero(key, s[key])) problems.push(fieldForbidden(`${path}.${key}`, detail));
  }
  if (type === 'null') {
    problems.push(fieldForbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  }
  if (Array.isArray(s.items) && s.items.length > 0) {
    problems.push(fieldForbidden(`${path}.items`, 'items must be a schema object and not an array'));
  }
  if (place.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    problems.push(fieldForbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
}
