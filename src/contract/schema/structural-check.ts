import type { JSONSchemaProps } from './json-schema-props.ts';
import { isPlainObject } from '../kube-object.ts';

// What kube-apiserver checks of a version's openAPIV3Schema when a CRD is created (k8s.io/apiextensions-apiserver:
// pkg/apiserver/schema/validation.go and complete.go for structurality, pkg/apis/apiextensions/validation/
// validation.go for the rest), in its words, so that a contract loads exactly when its CRD would be accepted:
// - structurality: a type on every specified node, nothing but value constraints inside allOf, anyOf, oneOf and not
//   (with the API server's two exceptions for int-or-string, controller-gen's output for IntOrString and Quantity:
//   `anyOf: [{type: integer}, {type: string}]`, and an allOf whose first entry is that anyOf), metadata at the root
//   restricted to name and generateName, embedded resources, and every property a root junctor names declared;
// - the OpenAPI subset: no $ref, patternProperties and the like, no uniqueItems, properties and additionalProperties
//   not together, the x-kubernetes-list-type, -list-map-keys and -map-type rules, static x-kubernetes-validations
//   rules, defaults forbidden in metadata, the root's fields when the status subresource is on.
// Left to the API server: compiling and costing CEL rules, and checking that defaults validate and survive pruning.
// One rule of crdgate's own: a pattern must compile as an ECMAScript regular expression too (the API server checks
// RE2 syntax), since crdgate's validators evaluate it.

export interface StructuralCheckOptions {
  /** The version has the status subresource: the root may then hold only some fields (the API server's rule). */
  statusSubresource?: boolean;
}

type Schema = Record<string, unknown>;

const root = 'openAPIV3Schema';

/** The API server's problems with a version's openAPIV3Schema, each `path: reason`; empty when it accepts it. */
export function checkStructural(schema: JSONSchemaProps, options: StructuralCheckOptions = {}): string[] {
  const node = schema as unknown as Schema;
  if (!isPlainObject(node)) return [`${root}: Invalid value: ${describe(node)}: must be a schema object`];
  const problems: string[] = [];
  checkRootFields(node, options, problems);
  // The API server judges structurality only of a schema it can read as one (no $ref, items arrays and the like);
  // what it cannot read is refused by the checks that follow, in their own words.
  if (!hasUnsupportedFields(node)) {
    structuralInvariants(node, 'root', root, problems);
    valueValidationCompleteness(node, node, root, root, problems);
  }
  openApiSchema(node, root, { isRoot: true, insideResourceMeta: false, defaultsForbidden: undefined }, problems);
  // The API server reports each problem once, however many rules found it.
  return [...new Set(problems)];
}

// ---- the root -----------------------------------------------------------------------------------------------------

/** The fields the root may have while the status subresource is on (so that status's schema is whole on its own). */
const allowedAtRootWithStatus = [
  'description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'required', 'items', 'properties',
  'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations',
];
/** Their names in the API server's message, which are its Go field names. */
const allowedAtRootWithStatusGoNames =
  'Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems ' +
  'MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations';

function checkRootFields(schema: Schema, options: StructuralCheckOptions, problems: string[]): void {
  if (options.statusSubresource) {
    if (!isZero('type', schema.type) && schema.type !== 'object') {
      problems.push(`${root}.type: Invalid value: ${describe(schema.type)}: only "object" is allowed as the type at the root of the schema if the status subresource is enabled`);
    } else {
      const others = Object.keys(schema).filter((key) => isSchemaField(key) && !isZero(key, schema[key]) && !allowedAtRootWithStatus.includes(key));
      if (others.length > 0) {
        problems.push(
          `${root}: Invalid value: ${describe(others.join(', '))}: only [${allowedAtRootWithStatusGoNames}] fields are allowed at the root of the schema if the status subresource is enabled`,
        );
      }
    }
  }
  if (schema.nullable === true) problems.push(`${root}.nullable: Forbidden: nullable cannot be true at the root`);
}

// ---- structurality (the API server's schema/validation.go) ---------------------------------------------------------

type Level = 'root' | 'item' | 'field';

function structuralInvariants(s: Schema, level: Level, path: string, problems: string[]): void {
  const items = subschema(s, 'items');
  if (s.type === 'array' && items === undefined) problems.push(`${path}.items: Required value: must be specified`);
  if (items) structuralInvariants(items, 'item', `${path}.items`, problems);
  for (const [name, property] of properties(s)) structuralInvariants(property, 'field', `${path}.properties[${name}]`, problems);

  if (s.additionalProperties !== undefined) {
    if (level === 'root') problems.push(`${path}.additionalProperties: Forbidden: must not be used at the root`);
    const additional = subschema(s, 'additionalProperties');
    if (additional) structuralInvariants(additional, 'field', `${path}.additionalProperties`, problems);
  }

  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserveUnknown = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserveUnknown) {
    problems.push(`${path}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`);
  }
  if (intOrString && embedded) problems.push(`${path}.x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`);

  valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s.allOf), path, problems);

  const type = typeOf(s);
  if (embedded && type !== 'object') {
    problems.push(
      type === ''
        ? `${path}.type: Required value: must be object if x-kubernetes-embedded-resource is true`
        : `${path}.type: Invalid value: ${describe(type)}: must be object if x-kubernetes-embedded-resource is true`,
    );
  } else if (type === '' && !intOrString && !preserveUnknown) {
    problems.push(`${path}.type: Required value: ${emptyTypeMessage[level]}`);
  }
  if (embedded && s.additionalProperties !== undefined) {
    problems.push(`${path}.additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`);
  }
  if (level === 'root' && type !== '' && type !== 'object') problems.push(`${path}.type: Invalid value: ${describe(type)}: must be object at the root`);

  const checkMetadata = level === 'root' || embedded;
  const declared = new Map(properties(s));
  for (const field of ['kind', 'apiVersion']) {
    const property = declared.get(field);
    if (property && checkMetadata && property.type !== 'string') {
      problems.push(`${path}.properties[${field}].type: Invalid value: ${describe(typeOf(property))}: must be string`);
    }
  }
  const metadata = declared.get('metadata');
  if (metadata) metadataInvariants(metadata, checkMetadata, level, `${path}.properties[metadata]`, problems);

  if (embedded && !preserveUnknown && declared.size === 0) {
    problems.push(`${path}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`);
  }
}

const emptyTypeMessage: Readonly<Record<Level, string>> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/** The API server fills in metadata's schema itself: at the root, a schema may only restrict name and generateName. */
function metadataInvariants(s: Schema, checkMetadata: boolean, level: Level, path: string, problems: string[]): void {
  if (checkMetadata && s.type !== 'object') problems.push(`${path}.type: Invalid value: ${describe(typeOf(s))}: must be object`);
  if (level !== 'root') return;
  const names = Object.keys(isPlainObject(s.properties) ? s.properties : {});
  const onlyNames = names.every((name) => name === 'name' || name === 'generateName');
  const restricts = Object.keys(s).some((key) => {
    if (key === 'type' || key === 'default' || !isSchemaField(key)) return false;
    if (key === 'properties') return names.length > 0 && !onlyNames;
    return !isZero(key, s[key]);
  });
  if (restricts) problems.push(`${path}: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`);
}

/** The junctors of a structural node; the int-or-string exceptions skip the anyOf they name. */
function valueValidation(v: Schema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string, problems: string[]): void {
  if (!skipAnyOf) subschemas(v, 'anyOf').forEach((branch, i) => nestedValueValidation(branch, false, `${path}.anyOf[${i}]`, problems));
  subschemas(v, 'allOf').forEach((branch, i) => nestedValueValidation(branch, skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`, problems));
  subschemas(v, 'oneOf').forEach((branch, i) => nestedValueValidation(branch, false, `${path}.oneOf[${i}]`, problems));
  const not = subschema(v, 'not');
  if (not) nestedValueValidation(not, false, `${path}.not`, problems);
  checkPattern(v, path, problems);
}

/** Inside allOf, anyOf, oneOf and not: constraints on values only, no types, no extensions. */
function nestedValueValidation(v: Schema, skipAnyOf: boolean, path: string, problems: string[]): void {
  valueValidation(v, skipAnyOf, false, path, problems);
  const items = subschema(v, 'items');
  if (items) nestedValueValidation(items, false, `${path}.items`, problems);
  for (const [name, property] of properties(v)) nestedValueValidation(property, false, `${path}.properties[${name}]`, problems);

  const forbid = (key: string, detail: string) => problems.push(`${path}.${key}: Forbidden: ${detail}`);
  if (typeOf(v) !== '') forbid('type', 'must be empty to be structural');
  // `additionalProperties: false` says nothing a structural schema cares about; a schema or `true` does.
  if (v.additionalProperties !== undefined && v.additionalProperties !== false) forbid('additionalProperties', 'must be undefined to be structural');
  if (v.default !== undefined) forbid('default', 'must be undefined to be structural');
  if (!isZero('title', v.title)) forbid('title', 'must be empty to be structural');
  if (!isZero('description', v.description)) forbid('description', 'must be empty to be structural');
  if (v.nullable === true) forbid('nullable', 'must be false to be structural');
  // (The API server's code forbids externalDocs here too, but it never sees them: a real one accepts them.)
  if (v['x-kubernetes-preserve-unknown-fields'] === true) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (v['x-kubernetes-embedded-resource'] === true) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (v['x-kubernetes-int-or-string'] === true) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if (!isZero('x-kubernetes-list-map-keys', v['x-kubernetes-list-map-keys'])) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (v['x-kubernetes-list-type'] !== undefined && v['x-kubernetes-list-type'] !== null) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (v['x-kubernetes-map-type'] !== undefined && v['x-kubernetes-map-type'] !== null) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (!isZero('x-kubernetes-validations', v['x-kubernetes-validations'])) forbid('x-kubernetes-validations', 'must be empty to be structural');
  if (isPlainObject(v.properties) && Object.hasOwn(v.properties, 'metadata')) {
    problems.push(`${path}.properties[metadata]: Forbidden: must not be specified in a nested context`);
  }
}

/** `anyOf: [{type: integer}, {type: string}]` exactly: what controller-gen writes for IntOrString and Quantity. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && isOnlyType(anyOf[0], 'integer') && isOnlyType(anyOf[1], 'string');
}

/** An allOf whose first entry has {@link isIntOrStringAnyOf}'s anyOf (beside anything else). */
function isIntOrStringAllOf(allOf: unknown): boolean {
  return Array.isArray(allOf) && isPlainObject(allOf[0]) && isIntOrStringAnyOf(allOf[0].anyOf);
}

function isOnlyType(branch: unknown, type: string): boolean {
  return isPlainObject(branch) && branch.type === type && Object.keys(branch).every((key) => key === 'type' || !isSchemaField(key) || isZero(key, branch[key]));
}

/** The API server's completeness rule, which it applies to the root's junctors: what they name must be declared. */
function valueValidationCompleteness(v: Schema, s: Schema | undefined, sPath: string, vPath: string, problems: string[]): void {
  const nested = (branch: Schema, branchPath: string) => nestedCompleteness(branch, s, sPath, branchPath, problems);
  const not = subschema(v, 'not');
  if (not) nested(not, `${vPath}.not`);
  subschemas(v, 'allOf').forEach((branch, i) => nested(branch, `${vPath}.allOf[${i}]`));
  subschemas(v, 'anyOf').forEach((branch, i) => nested(branch, `${vPath}.anyOf[${i}]`));
  subschemas(v, 'oneOf').forEach((branch, i) => nested(branch, `${vPath}.oneOf[${i}]`));
}

function nestedCompleteness(v: Schema, s: Schema | undefined, sPath: string, vPath: string, problems: string[]): void {
  if (!s) {
    problems.push(`${sPath}: Required value: because it is defined in ${vPath}`);
    return;
  }
  valueValidationCompleteness(v, s, sPath, vPath, problems);
  const items = subschema(v, 'items');
  if (items) nestedCompleteness(items, subschema(s, 'items'), `${sPath}.items`, `${vPath}.items`, problems);
  const declared = new Map(properties(s));
  for (const [name, property] of properties(v)) {
    nestedCompleteness(property, declared.get(name), `${sPath}.properties[${name}]`, `${vPath}.properties[${name}]`, problems);
  }
}

// ---- the OpenAPI subset (the API server's apiextensions/validation/validation.go) ----------------------------------

interface Place {
  isRoot: boolean;
  /** Under the apiVersion, kind or metadata of a resource (the root, or an embedded resource). */
  insideResourceMeta: boolean;
  /** Why a default may not be set here, when it may not. */
  defaultsForbidden: string | undefined;
}

const openApiTypes = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const unsupported: ReadonlyArray<readonly [string, string]> = [
  ['id', 'id is not supported'],
  ['additionalItems', 'additionalItems is not supported'],
  ['patternProperties', 'patternProperties is not supported'],
  ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'],
  ['$ref', '$ref is not supported'],
];
const resourceMetaFields = new Set(['metadata', 'kind', 'apiVersion']);
const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

function openApiSchema(s: Schema, path: string, place: Place, problems: string[]): void {
  standardValidation(s, path, place, problems);
  if (s.uniqueItems === true) {
    problems.push(`${path}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`);
  }

  const declared = properties(s);
  if (s.additionalProperties !== undefined) {
    if (declared.length > 0 && s.additionalProperties !== true) {
      problems.push(`${path}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`);
    }
    const additional = subschema(s, 'additionalProperties');
    if (additional) {
      const inner = place.insideResourceMeta ? { ...place, defaultsForbidden: 'inside additionalProperties applying to object metadata' } : place;
      openApiSchema(additional, `${path}.additionalProperties`, { ...inner, isRoot: false }, problems);
    }
  }
  for (const [name, property] of declared) {
    let inner: Place = { ...place, isRoot: false };
    if ((place.isRoot || s['x-kubernetes-embedded-resource'] === true) && resourceMetaFields.has(name)) {
      inner = { ...inner, insideResourceMeta: true };
      if (place.isRoot) inner = { ...inner, defaultsForbidden: `in top-level ${name}` };
    }
    openApiSchema(property, `${path}.properties[${name}]`, inner, problems);
  }
  const nested: Place = { ...place, isRoot: false };
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
  if (isPlainObject(s.items)) openApiSchema(s.items, `${path}.items`, nested, problems);
  else if (Array.isArray(s.items)) s.items.forEach((item, i) => isPlainObject(item) && openApiSchema(item, `${path}.items[${i}]`, nested, problems));
  if (isPlainObject(s.dependencies)) {
    for (const [name, dependency] of Object.entries(s.dependencies)) {
      if (isPlainObject(dependency)) openApiSchema(dependency, `${path}.dependencies[${name}]`, nested, problems);
    }
  }

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    problems.push(`${path}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`);
  }
  checkMapType(s, path, problems);
  checkListType(s, path, problems);
  checkMapListKeysMapSet(s, path, problems);
  checkValidationRules(s, path, problems);
}

function standardValidation(s: Schema, path: string, place: Place, problems: string[]): void {
  const type = typeOf(s);
  if (type !== '' && !openApiTypes.includes(type)) {
    problems.push(`${path}.type: Unsupported value: ${describe(type)}: supported values: ${openApiTypes.map((t) => `"${t}"`).join(', ')}`);
  }
  if (s.default !== undefined && place.defaultsForbidden !== undefined) {
    problems.push(`${path}.default: Forbidden: must not be set ${place.defaultsForbidden}`);
  }
  for (const [key, detail] of unsupported) {
    if (s[key] !== undefined && !isZero(key, s[key])) problems.push(`${path}.${key}: Forbidden: ${detail}`);
  }
  if (type === 'null') problems.push(`${path}.type: Forbidden: type cannot be set to null, use nullable as an alternative`);
  if (Array.isArray(s.items) && s.items.length > 0) problems.push(`${path}.items: Forbidden: items must be a schema object and not an array`);
  if (place.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    problems.push(`${path}.x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`);
  }
}

function checkMapType(s: Schema, path: string, problems: string[]): void {
  const mapType = s['x-kubernetes-map-type'];
  if (mapType === undefined || mapType === null) return;
  const type = typeOf(s);
  if (type !== 'object') {
    problems.push(
      type === ''
        ? `${path}.type: Required value: must be object if x-kubernetes-map-type is specified`
        : `${path}.type: Invalid value: ${describe(type)}: must be object if x-kubernetes-map-type is specified`,
    );
  }
  if (mapType !== 'atomic' && mapType !== 'granular') {
    problems.push(`${path}.x-kubernetes-map-type: Unsupported value: ${describe(mapType)}: supported values: "atomic", "granular"`);
  }
}

function checkListType(s: Schema, path: string, problems: string[]): void {
  const listType = s['x-kubernetes-list-type'];
  const hasListType = listType !== undefined && listType !== null;
  const type = typeOf(s);
  const items = subschema(s, 'items');
  if (hasListType && type !== 'array') {
    problems.push(
      type === ''
        ? `${path}.type: Required value: must be array if x-kubernetes-list-type is specified`
        : `${path}.type: Invalid value: ${describe(type)}: must be array if x-kubernetes-list-type is specified`,
    );
  } else if (listType === 'set' && items) {
    // A set's items are compared whole, so they must be atomic.
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      problems.push(`${path}.items.x-kubernetes-list-type: Invalid value: ${describe(items['x-kubernetes-list-type'])}: must be atomic as item of a list with x-kubernetes-list-type=set`);
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // The API server shows the items' list type here, not their map type.
      problems.push(`${path}.items.x-kubernetes-map-type: Invalid value: ${describe(items['x-kubernetes-list-type'] ?? null)}: must be atomic as item of a list with x-kubernetes-list-type=set`);
    }
  }
  if (hasListType && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    problems.push(`${path}.x-kubernetes-list-type: Unsupported value: ${describe(listType)}: supported values: "atomic", "set", "map"`);
  }

  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]) : [];
  if (keys.length > 0) {
    if (!hasListType) problems.push(`${path}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`);
    else if (listType !== 'map') problems.push(`${path}.x-kubernetes-list-type: Invalid value: ${describe(listType)}: must be map if x-kubernetes-list-map-keys is non-empty`);
  }
  if (listType !== 'map') return;
  if (keys.length === 0) problems.push(`${path}.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`);
  if (s.items === undefined || s.items === null) problems.push(`${path}.items: Required value: must have a schema if x-kubernetes-list-type is map`);
  else if (!items) problems.push(`${path}.items: Invalid value: ${describe(s.items)}: must only have a single schema if x-kubernetes-list-type is map`);
  if (!items) return;
  if (items.type !== 'object') {
    problems.push(`${path}.items.type: Invalid value: ${describe(typeOf(items))}: must be object if parent array's x-kubernetes-list-type is map`);
    return;
  }
  const itemProperties = new Map(properties(items));
  const seen = new Set<unknown>();
  for (const key of keys) {
    const property = itemProperties.get(String(key));
    if (!property) {
      problems.push(`${path}.x-kubernetes-list-map-keys: Invalid value: ${describe(keys)}: entries must all be names of item properties`);
    } else if (property.type === 'array' || property.type === 'object') {
      // The API server shows the items' type here, not the key's.
      problems.push(`${path}.items.properties[${String(key)}].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`);
    }
    if (seen.has(key)) problems.push(`${path}.x-kubernetes-list-map-keys: Invalid value: ${describe(keys)}: must not contain duplicate entries`);
    seen.add(key);
  }
}

function checkMapListKeysMapSet(s: Schema, path: string, problems: string[]): void {
  const listType = s['x-kubernetes-list-type'];
  const items = subschema(s, 'items');
  if (!items || (listType !== 'set' && listType !== 'map')) return;
  if (items.nullable === true) problems.push(`${path}.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is ${listType}`);
  if (listType !== 'map') return;
  const required = new Set(Array.isArray(items.required) ? items.required : []);
  const itemProperties = new Map(properties(items));
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]) : [];
  for (const key of keys) {
    const property = itemProperties.get(String(key));
    if (!property) continue;
    const at = `${path}.items.properties[${String(key)}]`;
    if (!required.has(key) && property.default === undefined) {
      problems.push(`${at}.default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`);
    }
    if (property.nullable === true) problems.push(`${at}.nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`);
  }
}

/** The static part of the API server's checks of CEL rules; compiling them is left to it. */
function checkValidationRules(s: Schema, path: string, problems: string[]): void {
  const rules = s['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  rules.forEach((rule: unknown, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const entry = isPlainObject(rule) ? rule : {};
    const text = (key: string) => (typeof entry[key] === 'string' ? entry[key] : '');
    const ruleText = text('rule').trim();
    const message = text('message');
    if (ruleText === '') problems.push(`${at}.rule: Required value: rule is not specified`);
    else if (message.length > 0 && message.trim() === '') problems.push(`${at}.message: Invalid value: ${describe(message)}: must be non-empty if specified`);
    else if (hasNewlines(message.trim())) problems.push(`${at}.message: Invalid value: ${describe(message)}: must not contain line breaks`);
    else if (hasNewlines(ruleText) && message.trim() === '') problems.push(`${at}.message: Required value: message must be specified if rule contains line breaks`);
    const messageExpression = text('messageExpression');
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      problems.push(`${at}.messageExpression: Required value: messageExpression must be non-empty if specified`);
    }
    if (entry.reason !== undefined && entry.reason !== null && !validationReasons.includes(String(entry.reason))) {
      problems.push(`${at}.reason: Unsupported value: ${describe(entry.reason)}: supported values: ${validationReasons.map((r) => `"${r}"`).join(', ')}`);
    }
    const fieldPath = text('fieldPath');
    if (fieldPath.length > 0 && fieldPath.trim() === '') problems.push(`${at}.fieldPath: Invalid value: ${describe(fieldPath)}: must be non-empty if specified`);
    if (hasNewlines(fieldPath)) problems.push(`${at}.fieldPath: Invalid value: ${describe(fieldPath)}: must not contain line breaks`);
    if (fieldPath.length > 0 && !hasUnsupportedFields(s) && !isValidFieldPath(fieldPath, s)) {
      problems.push(`${at}.fieldPath: Invalid value: ${describe(fieldPath)}: must be a valid path`);
    }
  });
}

/**
 * Whether a rule's fieldPath (`.spec.size`, `['key.with.dots']`) leads from the rule's node to a declared field, or
 * into a map, as the API server's reading of it does.
 */
function isValidFieldPath(path: string, start: Schema): boolean {
  const tokens = fieldPathTokens(path);
  let node: Schema | undefined = start;
  for (let i = 0; i < tokens.length; i++) {
    let name: string;
    if (tokens[i] === '.') {
      if (++i >= tokens.length) return false;
      name = tokens[i]!;
    } else if (tokens[i] === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'") || tokens[++i] !== ']') return false;
      const unescaped = unescapeSingleQuoted(quoted.slice(1, -1));
      if (unescaped === undefined) return false;
      name = unescaped;
    } else {
      return false;
    }
    if (!node) return false;
    const declared: Array<[string, Schema]> = properties(node);
    if (declared.length > 0) node = new Map(declared).get(name);
    else if (node.additionalProperties !== undefined) node = subschema(node, 'additionalProperties');
    else return false;
    if (!node && declared.length > 0) return false;
  }
  return true;
}

/** `.`, `[` and `]` alone, single-quoted strings whole, and the text between them. */
function fieldPathTokens(path: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === "'") {
      let end = i + 1;
      while (end < path.length && !(path[end] === "'" && path[end - 1] !== '\\')) end++;
      tokens.push(path.slice(i, end + 1));
      i = end + 1;
    } else if ('.[]'.includes(path[i]!)) {
      tokens.push(path[i++]!);
    } else {
      let end = i;
      while (end < path.length && !'.[]'.includes(path[end]!)) end++;
      tokens.push(path.slice(i, end));
      i = end;
    }
  }
  return tokens;
}

const escapes: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuoted(text: string): string | undefined {
  let valid = true;
  const result = text.replace(/\\./g, (match) => {
    const replacement = escapes[match[1]!];
    if (replacement === undefined) valid = false;
    return replacement ?? '';
  });
  return valid ? result : undefined;
}

// The API server checks patterns as RE2; crdgate's validators evaluate them as ECMAScript, so a pattern must compile
// as both (the API server's own check is left to it: RE2 and ECMAScript agree on what real CRDs use).
function checkPattern(schema: Schema, path: string, problems: string[]): void {
  if (typeof schema.pattern !== 'string' || schema.pattern === '') return;
  try {
    new RegExp(schema.pattern, 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push(`${path}.pattern: Invalid value: ${describe(schema.pattern)}: crdgate evaluates patterns as ECMAScript regular expressions, and this is not one: ${reason}`);
  }
}

// ---- reading a schema of unknown shape -----------------------------------------------------------------------------

/** Fields the API server would refuse to read a structural schema from. */
function hasUnsupportedFields(s: Schema): boolean {
  let found = false;
  const visit = (node: Schema): void => {
    if (found) return;
    if (unsupported.some(([key]) => node[key] !== undefined && !isZero(key, node[key])) || (Array.isArray(node.items) && node.items.length > 0)) {
      found = true;
      return;
    }
    for (const child of childSchemas(node)) visit(child);
  };
  visit(s);
  return found;
}

function childSchemas(s: Schema): Schema[] {
  const children: Schema[] = properties(s).map(([, property]) => property);
  for (const key of ['items', 'additionalProperties', 'not']) {
    const child = subschema(s, key);
    if (child) children.push(child);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) children.push(...subschemas(s, key));
  return children;
}

function subschema(s: Schema, key: string): Schema | undefined {
  const value = s[key];
  return isPlainObject(value) ? value : undefined;
}

function subschemas(s: Schema, key: string): Schema[] {
  const value = s[key];
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function properties(s: Schema): Array<[string, Schema]> {
  return isPlainObject(s.properties) ? Object.entries(s.properties).filter((entry): entry is [string, Schema] => isPlainObject(entry[1])) : [];
}

function typeOf(s: Schema): string {
  return typeof s.type === 'string' ? s.type : '';
}

/** JSONSchemaProps' fields (apiextensions.k8s.io/v1): others are dropped when the API server decodes a schema. */
const schemaFields = new Set([
  'id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties',
  'additionalProperties', 'patternProperties', 'dependencies', 'additionalItems', 'definitions', 'externalDocs', 'example',
  'nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations',
]);

function isSchemaField(key: string): boolean {
  return schemaFields.has(key);
}

/**
 * Whether a field holds its Go zero value once the API server has decoded it, which is what its checks compare
 * against: false, "", null, and empty lists and maps where the decoded field is a list or map it only appends to.
 * (`required: []` is not zero: the API server keeps the empty list.)
 */
function isZero(key: string, value: unknown): boolean {
  if (key === 'default' || key === 'example') return value === undefined;
  if (key === 'required') return value === undefined || value === null;
  if (value === undefined || value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value) && key !== 'not' && key !== 'items' && key !== 'externalDocs' && key !== 'additionalProperties') return Object.keys(value).length === 0;
  return false;
}

function hasNewlines(text: string): boolean {
  return /[\n\r]/.test(text);
}

/** A value as the API server's field errors show it: strings quoted, the rest as JSON. */
function describe(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
