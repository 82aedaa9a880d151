/**
 * A problem with one field of an object, in the vocabulary of Kubernetes' own validation
 * (k8s.io/apimachinery/pkg/util/validation/field): the `type` doubles as the stable code tests assert,
 * and travels to the API server as a StatusCause `reason`, so kubectl users see familiar terms.
 */
export const fieldErrorTypes = [
  'FieldValueRequired',
  'FieldValueInvalid',
  'FieldValueTypeInvalid',
  'FieldValueNotSupported',
  'FieldValueDuplicate',
  'FieldValueTooMany',
  'FieldValueTooLong',
  'FieldValueForbidden',
  'FieldValueUnknown',
  // The rest of Kubernetes' types, which only the API server engine reports (kube-apiserver's own validation).
  'FieldValueNotFound',
  'FieldValueTooShort',
  'FieldValueTooFew',
  'InternalError',
] as const;

export type FieldErrorType = (typeof fieldErrorTypes)[number];

export function isFieldErrorType(value: string): value is FieldErrorType {
  return (fieldErrorTypes as readonly string[]).includes(value);
}

export interface FieldError {
  /** Kubernetes-style path: `spec.caches[1].name`; the empty string means the object itself. */
  field: string;
  type: FieldErrorType;
  /** Human text without the path; `formatFieldError` puts the two together. */
  message: string;
  /**
   * The exact steps to the field, when `field` cannot say them: map keys that need escaping are shortened in
   * `field` (as Kubernetes does), so only these steps find the value again (ratcheting compares it).
   */
  path?: ReadonlyArray<string | number>;
}

export function fieldError(field: string, type: FieldErrorType, message: string): FieldError {
  return { field, type, message };
}

export function formatFieldError(error: FieldError): string {
  return error.field === '' ? error.message : `${error.field}: ${error.message}`;
}
