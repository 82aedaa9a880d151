import {
  either,
  flag,
  integer,
  json,
  listOf,
  maybe,
  number,
  recordOf,
  recursive,
  shapeProblems,
  text,
  withFields,
  type OptionShape,
} from '../values/option-shape.ts';

// kube-apiserver reads a CRD's openAPIV3Schema into Go types (apiextensions.k8s.io/v1 JSONSchemaProps): a keyword
// whose value has another type (a maxLength of "10", a required that is not a list of strings) refuses the whole CRD
// before any rule looks at it. crdgate holds a version's schema to the same types first, so that the structural
// check and the compilation of validators only ever read a schema of the right types. Where crdgate is stricter:
// the API server reads null as a keyword left out, which crdgate refuses rather than render into the CRD (fromCrd
// takes a CRD's schema as the API server reads it, nulls left out). A negative length or count and a multipleOf that
// is not positive it takes, as the API server does: they bound nothing or refuse every value of their type
// (unsatisfiable-bound.ts).

const count = integer('an integer');

const schema: OptionShape = recursive(() => schemaProps);
const schemas = listOf(schema, 'a list of schemas');
const names = listOf(text(), 'a list of strings');

const validationRule = withFields(
  'a validation rule: { rule, message? }',
  {
    rule: text('a CEL expression'),
    message: maybe(text()),
    messageExpression: maybe(text('a CEL expression')),
    reason: maybe(text()),
    fieldPath: maybe(text()),
    optionalOldSelf: maybe(flag),
  },
  json,
);

const schemaProps: OptionShape = withFields(
  'a schema object',
  {
    id: maybe(text()),
    $schema: maybe(text()),
    $ref: maybe(text()),
    description: maybe(text()),
    type: maybe(text()),
    format: maybe(text()),
    title: maybe(text()),
    default: maybe(json),
    maximum: maybe(number()),
    exclusiveMaximum: maybe(flag),
    minimum: maybe(number()),
    exclusiveMinimum: maybe(flag),
    maxLength: maybe(count),
    minLength: maybe(count),
    pattern: maybe(text()),
    maxItems: maybe(count),
    minItems: maybe(count),
    uniqueItems: maybe(flag),
    multipleOf: maybe(number()),
    enum: maybe(listOf(json, 'a list of values')),
    maxProperties: maybe(count),
    minProperties: maybe(count),
    required: maybe(names),
    items: maybe(either('a schema, or a list of schemas', schema, schemas)),
    allOf: maybe(schemas),
    oneOf: maybe(schemas),
    anyOf: maybe(schemas),
    not: maybe(schema),
    properties: maybe(recordOf(schema, 'an object of field names to schemas')),
    additionalProperties: maybe(either('true, false or a schema', flag, schema)),
    patternProperties: maybe(recordOf(schema, 'an object of patterns to schemas')),
    dependencies: maybe(
      recordOf(either('a schema, or a list of strings', schema, names), 'an object of field names to dependencies'),
    ),
    additionalItems: maybe(either('true, false or a schema', flag, schema)),
    definitions: maybe(recordOf(schema, 'an object of names to schemas')),
    externalDocs: maybe(
      withFields('an object: { description?, url? }', { description: maybe(text()), url: maybe(text()) }, json),
    ),
    example: maybe(json),
    nullable: maybe(flag),
    'x-kubernetes-preserve-unknown-fields': maybe(flag),
    'x-kubernetes-embedded-resource': maybe(flag),
    'x-kubernetes-int-or-string': maybe(flag),
    'x-kubernetes-list-map-keys': maybe(names),
    'x-kubernetes-list-type': maybe(text()),
    'x-kubernetes-map-type': maybe(text()),
    'x-kubernetes-validations': maybe(listOf(validationRule, 'a list of validation rules')),
    // A keyword the API server does not know is the structural check's to name; it is rendered, so it is JSON.
  },
  json,
);

/** Where a schema's keywords have values of types the API server cannot read, one sentence each. */
export function schemaShapeProblems(value: unknown): string[] {
  return shapeProblems(value, schemaProps, { path: ['openAPIV3Schema'], whole: 'openAPIV3Schema' });
}
