/**
 * The subset of apiextensions.k8s.io/v1 JSONSchemaProps that crdgate understands: what a contract writes as a
 * version's openAPIV3Schema, rendered verbatim into the CRD and compiled into crdgate's validators.
 */

export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

export type JSONSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface JSONSchemaProps {
  type?: JSONSchemaType;
  title?: string;
  description?: string;
  /** Applied by the API server itself; crdgate's validators ignore it. */
  default?: JSONValue;
  example?: JSONValue;

  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  /** `true` or a schema for the values of a map; Kubernetes forbids it next to `properties`. */
  additionalProperties?: boolean | JSONSchemaProps;
  minProperties?: number;
  maxProperties?: number;

  items?: JSONSchemaProps;
  minItems?: number;
  maxItems?: number;

  enum?: JSONValue[];
  /** Known formats are checked; unknown ones are ignored, as Kubernetes does. */
  format?: string;
  /** Kubernetes evaluates patterns with Go's RE2, crdgate with ECMAScript: keep to their common subset. */
  pattern?: string;
  minLength?: number;
  maxLength?: number;

  minimum?: number;
  maximum?: number;
  /** OpenAPI v3.0 style: a flag that makes `minimum` exclusive, not a bound of its own. */
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;

  /** Without it, null is a type error. */
  nullable?: boolean;

  // Value validations: in a structural schema, the schemas below them must not carry types or extensions.
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;

  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
}
