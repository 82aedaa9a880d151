/**
 * The one catalog of crdgate's error codes. Codes are stable: tests, logs and metrics use them, never the wording.
 *
 * Two families: protocol errors answer the HTTP request itself (the API server then applies the webhook's
 * failurePolicy), decision codes travel inside a well-formed AdmissionReview response as its `status`.
 */
export const protocolErrors = {
  BODY_NOT_JSON: { httpStatus: 400, summary: 'the body is not valid JSON' },
  REVIEW_MALFORMED: { httpStatus: 400, summary: 'the body is not a well-formed review' },
  BODY_TOO_LARGE: { httpStatus: 413, summary: 'the body is larger than this endpoint accepts' },
  CONTENT_TYPE_UNSUPPORTED: { httpStatus: 415, summary: 'the body must be application/json' },
  ROUTE_NOT_FOUND: { httpStatus: 404, summary: 'no such endpoint' },
  REQUEST_TIMEOUT: { httpStatus: 408, summary: 'the request body did not arrive in time' },
} as const;

export type ProtocolErrorCode = keyof typeof protocolErrors;

export class ProtocolError extends Error {
  override name = 'ProtocolError';
  readonly code: ProtocolErrorCode;
  readonly httpStatus: number;

  constructor(code: ProtocolErrorCode, detail?: string) {
    super(detail ? `${protocolErrors[code].summary}: ${detail}` : protocolErrors[code].summary);
    this.code = code;
    this.httpStatus = protocolErrors[code].httpStatus;
  }
}

/** The body of every non-200 answer: short, machine-readable, no stack traces. */
export function protocolErrorBody(error: ProtocolError): { error: { code: ProtocolErrorCode; message: string } } {
  return { error: { code: error.code, message: error.message } };
}

/**
 * Outcomes of an admission decision, with the metav1.Status code and reason the API server turns into the
 * error the user sees (403 Forbidden for a rule, 422 Invalid for an invalid object, 500 for crdgate's own failure).
 */
export const decisionCodes = {
  ALLOWED: { statusCode: 200, reason: '' },
  OBJECT_INVALID: { statusCode: 422, reason: 'Invalid' },
  CHANGE_FORBIDDEN: { statusCode: 403, reason: 'Forbidden' },
  DELETION_PROTECTED: { statusCode: 403, reason: 'Forbidden' },
  KIND_UNKNOWN: { statusCode: 403, reason: 'Forbidden' },
  VERSION_UNKNOWN: { statusCode: 403, reason: 'Forbidden' },
  INTERNAL_ERROR: { statusCode: 500, reason: 'InternalError' },
} as const;

export type DecisionCode = keyof typeof decisionCodes;
