import type { FuncKeywordDefinition } from 'ajv';
import type { FieldErrorType } from '../values/field-error.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

// kube-apiserver takes a CRD whose maxLength, maxItems or maxProperties is negative, or whose multipleOf is not
// positive (apiextensions.k8s.io/v1 checks only their types), and then refuses every value of the type they bound:
// no string is short enough, no list or map small enough, no number a multiple of such a factor. JSON Schema (ajv)
// refuses to compile them, so crdgate says the same as one keyword of its own; a negative minLength, minItems or
// minProperties bounds nothing, and is left out.

export const unsatisfiableBoundKeyword = 'x-crdgate-unsatisfiable-bound';

export type BoundKeyword = 'maxLength' | 'maxItems' | 'maxProperties' | 'multipleOf';

export interface UnsatisfiableBound {
  keyword: BoundKeyword;
  value: number;
}

/** The bound of a node that no value of its type meets, if it has one. */
export function unsatisfiableBound(schema: JSONSchemaProps): UnsatisfiableBound | undefined {
  for (const keyword of ['maxLength', 'maxItems', 'maxProperties'] as const) {
    const value = schema[keyword];
    if (value !== undefined && value < 0) return { keyword, value };
  }
  if (schema.multipleOf !== undefined && schema.multipleOf <= 0)
    return { keyword: 'multipleOf', value: schema.multipleOf };
  return undefined;
}

/** Whether a bound of crdgate's validators is one it compiles as is (the rest is unsatisfiableBound's). */
export function isSatisfiableBound(keyword: string, value: number): boolean {
  return keyword === 'multipleOf' ? value > 0 : value >= 0;
}

const boundedType: Readonly<Record<BoundKeyword, (value: unknown) => boolean>> = {
  maxLength: (value) => typeof value === 'string',
  maxItems: (value) => Array.isArray(value),
  maxProperties: (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
  multipleOf: (value) => typeof value === 'number',
};

export const unsatisfiableBoundKeywordDefinition: FuncKeywordDefinition = {
  keyword: unsatisfiableBoundKeyword,
  schemaType: 'object',
  errors: false,
  compile: (bound: UnsatisfiableBound) => (data: unknown) => !boundedType[bound.keyword](data),
};

/** The API server's words for a value at `field` the bound refuses (kube-openapi's validator). */
export function unsatisfiableBoundError(
  bound: UnsatisfiableBound,
  data: unknown,
  field: string,
): { type: FieldErrorType; message: string } {
  switch (bound.keyword) {
    case 'maxLength':
      return { type: 'FieldValueTooLong', message: 'Too long: value is too long' };
    case 'multipleOf':
      return {
        type: 'FieldValueInvalid',
        message: `Invalid value: ${bound.value}: factor MultipleOf declared for ${field} must be positive: ${bound.value}`,
      };
    default: {
      const count = Array.isArray(data) ? data.length : Object.keys(data as object).length;
      return { type: 'FieldValueTooMany', message: `Too many: ${count}: has too many items` };
    }
  }
}
