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

// Kubernetes' constructors (field.Required, field.Invalid, field.Forbidden, field.NotSupported), so that a message
// meant to equal kube-apiserver's is worded as its own are: the error type's words, the value, then why.
// A value arrives already shown (`"text"`, `3`, `["a"]`): callers show it bounded or in full, as their readers need.

/** `Required value`, then why when there is a why. */
export function fieldRequired(field: string, detail?: string): FieldError {
  return fieldError(field, 'FieldValueRequired', detail === undefined ? 'Required value' : `Required value: ${detail}`);
}

/** `Invalid value: <shown value>: <why>`. */
export function fieldInvalid(field: string, shownValue: string, detail: string): FieldError {
  return fieldError(field, 'FieldValueInvalid', `Invalid value: ${shownValue}: ${detail}`);
}

/** `Forbidden: <why>`. */
export function fieldForbidden(field: string, detail: string): FieldError {
  return fieldError(field, 'FieldValueForbidden', `Forbidden: ${detail}`);
}

/** `Unsupported value: <shown value>: supported values: "a", "b"`, each supported value quoted as Go's %q does. */
export function fieldNotSupported(field: string, shownValue: string, supported: readonly string[]): FieldError {
  const quoted = supported.map((value) => JSON.stringify(value)).join(', ');
  return fieldError(field, 'FieldValueNotSupported', `Unsupported value: ${shownValue}: supported values: ${quoted}`);
}
