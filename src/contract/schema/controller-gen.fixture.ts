import type { JSONSchemaProps } from './json-schema-props.ts';

// Go types as controller-gen renders them into a CRD's schema, for tests of what reads such fields.

/** intstr.IntOrString: an integer or a string. */
export const intOrStringSchema: JSONSchemaProps = {
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
};

/** resource.Quantity: an integer, or a string of the pattern (which takes a few strings Kubernetes cannot parse, such as 1e2.5). */
export const quantitySchema: JSONSchemaProps = {
  ...intOrStringSchema,
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
};
