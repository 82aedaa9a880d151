import { isPlainObject } from '../../values/kube-object.ts';
import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import { isSchemaField, isZero, properties, subschema, typeOf, type Schema } from './schema-reading.ts';
import { isIntOrStringAllOf, isIntOrStringAnyOf, valueValidation } from './value-validation.ts';

// Structurality (the API server's schema/validation.go): a type on every specified node, the extensions' rules,
// metadata at the root restricted to name and generateName, and embedded resources.

export type Level = 'root' | 'item' | 'field';

export function structuralInvariants(s: Schema, level: Level, path: string, problems: FieldError[]): void {
  const items = subschema(s, 'items');
  if (s.type === 'array' && items === undefined) problems.push(fieldRequired(`${path}.items`, 'must be specified'));
  if (items) structuralInvariants(items, 'item', `${path}.items`, problems);
  for (const [name, property] of properties(s)) {
    structuralInvariants(property, 'field', `${path}.properties[${name}]`, problems);
  }

  if (s.additionalProperties !== undefined) {
    if (level === 'root') problems.push(fieldForbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    const additional = subschema(s, 'additionalProperties');
    if (additional) structuralInvariants(additional, 'field', `${path}.additionalProperties`, problems);
  }

  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserveUnknown = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const notWithIntOrString = 'must be false if x-kubernetes-int-or-string is true';
  if (intOrString && preserveUnknown) {
    const at = `${path}.x-kubernetes-preserve-unknown-fields`;
    problems.push(fieldInvalid(at, describeInFull(true), notWithIntOrString));
  }
  if (intOrString && embedded) {
    problems.push(fieldInvalid(`${path}.x-kubernetes-embedded-resource`, describeInFull(true), notWithIntOrString));
  }

  valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s.allOf), path, problems);

  const type = typeOf(s);
  if (embedded && type !== 'object') {
    const why = 'must be object if x-kubernetes-embedded-resource is true';
    const at = `${path}.type`;
    problems.push(type === '' ? fieldRequired(at, why) : fieldInvalid(at, describeInFull(type), why));
  } else if (type === '' && !intOrString && !preserveUnknown) {
    problems.push(fieldRequired(`${path}.type`, emptyTypeMessage[level]));
  }
  if (embedded && s.additionalProperties !== undefined) {
    const why = 'must not be used if x-kubernetes-embedded-resource is set';
    problems.push(fieldForbidden(`${path}.additionalProperties`, why));
  }
  if (level === 'root' && type !== '' && type !== 'object') {
    problems.push(fieldInvalid(`${path}.type`, describeInFull(type), 'must be object at the root'));
  }

  const checkMetadata = level === 'root' || embedded;
  const declared = new Map(properties(s));
  for (const field of ['kind', 'apiVersion']) {
    const property = declared.get(field);
    if (property && checkMetadata && property.type !== 'string') {
      const at = `${path}.properties[${field}].type`;
      problems.push(fieldInvalid(at, describeInFull(typeOf(property)), 'must be string'));
    }
  }
  const metadata = declared.get('metadata');
  if (metadata) metadataInvariants(metadata, checkMetadata, level, `${path}.properties[metadata]`, problems);

  if (embedded && !preserveUnknown && declared.size === 0) {
    const why =
      'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields';
    problems.push(fieldRequired(`${path}.properties`, why));
  }
}

const emptyTypeMessage: Readonly<Record<Level, string>> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/** The API server fills in metadata's schema itself: at the root, a schema may only restrict name and generateName. */
function metadataInvariants(
  s: Schema,
  checkMetadata: boolean,
  level: Level,
  path: string,
  problems: FieldError[],
): void {
  if (checkMetadata && s.type !== 'object') {
    problems.push(fieldInvalid(`${path}.type`, describeInFull(typeOf(s)), 'must be object'));
  }
  if (level !== 'root') return;
  const names = Object.keys(isPlainObject(s.properties) ? s.properties : {});
  const onlyNames = names.every((name) => name === 'name' || name === 'generateName');
  const restricts = Object.keys(s).some((key) => {
    if (key === 'type' || key === 'default' || !isSchemaField(key)) return false;
    if (key === 'properties') return names.length > 0 && !onlyNames;
    return !isZero(key, s[key]);
  });
  if (restricts) {
    const why = 'must not specify anything other than name and generateName, but metadata is implicitly specified';
    problems.push(fieldForbidden(path, why));
  }
}
