import { fieldInvalid, formatFieldError, type FieldError } from '../values/field-error.ts';
import { isPlainObject } from '../values/kube-object.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { valueValidationCompleteness } from './structural/completeness.ts';
import { describeInFull } from './structural/describe-in-full.ts';
import { openApiSchema } from './structural/openapi-subset.ts';
import { checkRootFields } from './structural/root-fields.ts';
import { findsNode, hasSchemaUri, hasUnsupportedFields } from './structural/schema-reading.ts';
import { structuralInvariants } from './structural/structural-invariants.ts';

// What kube-apiserver checks of a version's openAPIV3Schema when a CRD is created (k8s.io/apiextensions-apiserver:
// pkg/apiserver/schema/validation.go and complete.go for structurality, pkg/apis/apiextensions/validation/
// validation.go for the rest), in its words, so that a contract loads exactly when its CRD would be accepted:
// - structurality: a type on every specified node, nothing but value constraints inside allOf, anyOf, oneOf and not
//   (with the API server's two exceptions for int-or-string, controller-gen's output for IntOrString and Quantity:
//   `anyOf: [{type: integer}, {type: string}]`, and an allOf whose first entry is that anyOf), metadata at the root
//   restricted to name and generateName, embedded resources, and every property a root junctor names declared;
// - the OpenAPI subset: no $ref, patternProperties and the like, no uniqueItems, properties and additionalProperties
//   not together, the x-kubernetes-list-type, -list-map-keys and -map-type rules, static x-kubernetes-validations
//   rules, defaults forbidden in metadata, the root's fields when the status subresource is on;
// - every pattern compiles as Go's regexp compiles it (RE2 syntax: structural/go-regexp.ts).
// Left to the API server: compiling and costing CEL rules, and checking that defaults validate and survive pruning.
// Each part has its file in structural/; every problem is a FieldError worded as the API server's own.

export interface StructuralCheckOptions {
  /** The version has the status subresource: the root may then hold only some fields (the API server's rule). */
  statusSubresource?: boolean;
}

const root = 'openAPIV3Schema';

/** The API server's problems with a version's openAPIV3Schema, each `path: reason`; empty when it accepts it. */
export function checkStructural(schema: JSONSchemaProps, options: StructuralCheckOptions = {}): string[] {
  const node: unknown = schema;
  if (!isPlainObject(node)) {
    return [formatFieldError(fieldInvalid(root, describeInFull(node), 'must be a schema object'))];
  }
  const problems: FieldError[] = [];
  checkRootFields(node, root, options.statusSubresource === true, problems);
  // The API server judges structurality only of a schema it can read as one (no $ref, items arrays and the like);
  // what it cannot read is refused by the checks that follow, in their own words.
  const unsupported = hasUnsupportedFields(node);
  if (!unsupported) {
    structuralInvariants(node, 'root', root, problems);
    valueValidationCompleteness(node, root, problems);
  }
  openApiSchema(node, root, { isRoot: true, insideResourceMeta: false, defaultsForbidden: undefined }, problems);
  // A $schema is one of the fields hasUnsupportedFields looks for: without any, there is none to look for again.
  if (problems.length === 0 && unsupported && findsNode(node, hasSchemaUri)) {
    problems.push(fieldInvalid(root, describeInFull(''), "OpenAPIV3Schema 'schema' is not supported"));
  }
  // The API server reports each problem once, however many rules found it.
  return [...new Set(problems.map(formatFieldError))];
}
