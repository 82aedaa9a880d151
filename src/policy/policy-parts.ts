import { cond, str, type Cel } from './cel.ts';

// The parts of a ValidatingAdmissionPolicy's spec the compiler writes, as admissionregistration.k8s.io/v1 names them.

export interface PolicyVariable {
  name: string;
  expression: string;
}

export interface PolicyValidation {
  expression: string;
  /** The API server falls back to `message` when it fails or is empty. */
  messageExpression: string;
  message: string;
  /** Forbidden: a 403, as the webhook's CHANGE_FORBIDDEN and DELETION_PROTECTED. */
  reason: 'Forbidden';
}

/**
 * A validation whose message is built only when it fails. The API server evaluates every messageExpression, passing
 * validations' too, against the policy's one cost budget: a passing validation's costs one comparison.
 */
export function policyValidation(expression: Cel, failureMessage: Cel, message: string): PolicyValidation {
  return {
    expression: expression.text,
    messageExpression: cond(expression, str(''), failureMessage).text,
    message,
    reason: 'Forbidden',
  };
}
