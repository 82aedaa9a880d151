/**
 * apiextensions.k8s.io/v1 JSONSchemaProps, as far as a structural schema may use it: what a contract writes as a
 * version's openAPIV3Schema, rendered verbatim into the CRD and compiled into crdgate's validators. (The fields the
 * API server refuses in a CRD, such as `$ref` or `patternProperties`, are left out; its checks name them.)
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
  externalDocs?: { description?: string; url?: string };

  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  /** `true` or a schema for the values of a map; Kubernetes forbids it next to `properties`. */
  additionalProperties?: boolean | JSONSchemaProps;
  minProperties?: number;
  maxProperties?: number;

  items?: JSONSchemaProps;
  minItems?: number;
  maxItems?: number;
  /** The API server refuses `true` (quadratic to check): use `x-kubernetes-list-type: set`. */
  uniqueItems?: boolean;

  enum?: JSONValue[];
  /** Known formats are checked; unknown ones are ignored, as Kubernetes does. */
  format?: string;
  /**
   * Go's regexp syntax (RE2), as kube-apiserver compiles it, and crdgate too; it matches anywhere in the value unless
   * anchored (`^...$`).
   */
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
  /** CEL rules: the API server checks them, crdgate carries them into the CRD and leaves them to it. */
  'x-kubernetes-validations'?: ValidationRule[];
}

/** One `x-kubernetes-validations` entry (apiextensions.k8s.io/v1 ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}
