import { isPlainObject } from '../../values/kube-object.ts';
import { fieldForbidden, type FieldError } from '../../values/field-error.ts';
import { checkPattern } from './go-pattern.ts';
import { isSchemaField, isZero, properties, subschema, subschemas, typeOf, type Schema } from './schema-reading.ts';

/** The junctors of a structural node; the int-or-string exceptions skip the anyOf they name. */
export function valueValidation(
  v: Schema,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: string,
  problems: FieldError[],
): void {
  if (!skipAnyOf) {
    subschemas(v, 'anyOf').forEach((branch, i) =>
      nestedValueValidation(branch, false, `${path}.anyOf[${i}]`, problems),
    );
  }
  subschemas(v, 'allOf').forEach((branch, i) =>
    nestedValueValidation(branch, skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`, problems),
  );
  subschemas(v, 'oneOf').forEach((branch, i) => nestedValueValidation(branch, false, `${path}.oneOf[${i}]`, problems));
  const not = subschema(v, 'not');
  if (not) nestedValueValidation(not, false, `${path}.not`, problems);
  checkPattern(v, path, problems);
}

/** Inside allOf, anyOf, oneOf and not: constraints on values only, no types, no extensions. */
function nestedValueValidation(v: Schema, skipAnyOf: boolean, path: string, problems: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, path, problems);
  const items = subschema(v, 'items');
  if (items) nestedValueValidation(items, false, `${path}.items`, problems);
  for (const [name, property] of properties(v)) {
    nestedValueValidation(property, false, `${path}.properties[${name}]`, problems);
  }

  const forbid = (key: string, detail: string) => problems.push(fieldForbidden(`${path}.${key}`, detail));
  const isSet = (key: string) => v[key] !== undefined && v[key] !== null;
  if (typeOf(v) !== '') forbid('type', 'must be empty to be structural');
  // `additionalProperties: false` says nothing a structural schema cares about; a schema or `true` does.
  if (v.additionalProperties !== undefined && v.additionalProperties !== false) {
    forbid('additionalProperties', 'must be undefined to be structural');
  }
  if (v.default !== undefined) forbid('default', 'must be undefined to be structural');
  if (!isZero('title', v.title)) forbid('title', 'must be empty to be structural');
  if (!isZero('description', v.description)) forbid('description', 'must be empty to be structural');
  if (v.nullable === true) forbid('nullable', 'must be false to be structural');
  // (The API server's code forbids externalDocs here too, but it never sees them: a real one accepts them.)
  for (const flag of structuralFlags) if (v[flag] === true) forbid(flag, 'must be false to be structural');
  if (!isZero('x-kubernetes-list-map-keys', v['x-kubernetes-list-map-keys'])) {
    forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  }
  if (isSet('x-kubernetes-list-type')) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (isSet('x-kubernetes-map-type')) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (!isZero('x-kubernetes-validations', v['x-kubernetes-validations'])) {
    forbid('x-kubernetes-validations', 'must be empty to be structural');
  }
  if (isPlainObject(v.properties) && Object.hasOwn(v.properties, 'metadata')) {
    problems.push(fieldForbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
  }
}

/** The extensions that say how a node's values are read: they belong on the structural node, not in a junctor. */
const structuralFlags = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
];

/** `anyOf: [{type: integer}, {type: string}]` exactly: what controller-gen writes for IntOrString and Quantity. */
export function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  return isOnlyType(anyOf[0], 'integer') && isOnlyType(anyOf[1], 'string');
}

/** An allOf whose first entry has {@link isIntOrStringAnyOf}'s anyOf (beside anything else). */
export function isIntOrStringAllOf(allOf: unknown): boolean {
  return Array.isArray(allOf) && isPlainObject(allOf[0]) && isIntOrStringAnyOf(allOf[0].anyOf);
}

function isOnlyType(branch: unknown, type: string): boolean {
  if (!isPlainObject(branch) || branch.type !== type) return false;
  return Object.keys(branch).every((key) => key === 'type' || !isSchemaField(key) || isZero(key, branch[key]));
}
