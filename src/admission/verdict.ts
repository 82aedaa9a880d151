import { decisionCodes, type DecisionCode } from '../errors.ts';
import { formatFieldError, type FieldError } from '../contract/values/field-error.ts';
import type { JsonPatchOperation } from './json-patch.ts';

/**
 * What a decision concludes, before it is addressed to a request. Built only through the constructors below,
 * so that the AdmissionReview rules (allowed always set, a patch never on a denial) hold by construction.
 */
export interface Verdict {
  allowed: boolean;
  code: DecisionCode;
  message?: string;
  causes?: FieldError[];
  /** The object a denial is about; kubectl then says `The GeoDatabase "x" is invalid` instead of `The request`. */
  subject?: DenialSubject;
  patch?: JsonPatchOperation[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

export interface DenialSubject {
  group: string;
  kind: string;
  name: string;
}

export function allow(warnings: string[] = [], auditAnnotations: Record<string, string> = {}): Verdict {
  return { allowed: true, code: 'ALLOWED', warnings, auditAnnotations };
}

export function deny(
  code: Exclude<DecisionCode, 'ALLOWED'>,
  message: string,
  causes: FieldError[] = [],
  subject?: DenialSubject,
): Verdict {
  return { allowed: false, code, message, causes, ...(subject ? { subject } : {}), warnings: [], auditAnnotations: {} };
}

/** crdgate itself failed: fail closed, so a bug can never wave an object through. */
export function errored(message: string): Verdict {
  return deny('INTERNAL_ERROR', `crdgate could not decide: ${message}`);
}

export function patched(patch: JsonPatchOperation[], warnings: string[] = []): Verdict {
  return patch.length === 0 ? allow(warnings) : { ...allow(warnings), patch };
}

/**
 * Worded the way kube-apiserver words an invalid object (`Kind.group "name" is invalid: field: message, ...`),
 * so crdgate's denials read like the API server's own.
 */
export function fieldErrorsMessage(
  kindAndGroup: string,
  name: string,
  predicate: string,
  errors: FieldError[],
): string {
  const { shown, more } = reportedErrors(errors);
  const list = [...shown.map(formatFieldError), ...(more > 0 ? [`and ${more} more`] : [])].join(', ');
  return `${kindAndGroup} "${shortened(name, maxNameLength)}" ${predicate}: ${list}`;
}

// A denial names the first errors, then how many more: whatever the input, the response stays small (a few KiB).
// Kubernetes caps its own lists of field errors the same way.
export const maxReportedErrors = 20;
const maxMessageLength = 4096;
const maxCauseTextLength = 512;
const maxNameLength = 253;

function reportedErrors(errors: readonly FieldError[]): { shown: FieldError[]; more: number } {
  if (errors.length <= maxReportedErrors) return { shown: [...errors], more: 0 };
  return { shown: errors.slice(0, maxReportedErrors), more: errors.length - maxReportedErrors };
}

function shortened(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: {
    code: number;
    reason?: string;
    message: string;
    details?: {
      group?: string;
      kind?: string;
      name?: string;
      causes?: Array<{ reason: string; message: string; field: string }>;
    };
  };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

// The API server rejects or truncates long and numerous warnings, and control characters break the HTTP header
// they travel in; crdgate trims them rather than risk the whole response.
const maxWarnings = 8;
const maxWarningLength = 256;

export function sanitizeWarnings(warnings: string[]): string[] {
  const clean = [...new Set(warnings.map(cleanWarning).filter((w) => w !== ''))];
  if (clean.length <= maxWarnings) return clean;
  return [...clean.slice(0, maxWarnings - 1), `and ${clean.length - (maxWarnings - 1)} more warnings`];
}

function cleanWarning(warning: string): string {
  const text = warning.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return text.length <= maxWarningLength ? text : `${text.slice(0, maxWarningLength - 1)}…`;
}

/** Addresses a verdict to a request: the wire `response` of an admission.k8s.io/v1 AdmissionReview. */
export function toAdmissionResponse(uid: string, verdict: Verdict): AdmissionResponse {
  const response: AdmissionResponse = { uid, allowed: verdict.allowed };
  if (!verdict.allowed) {
    const { statusCode, reason } = decisionCodes[verdict.code];
    const causes = reportedErrors(verdict.causes ?? []).shown;
    const details = {
      ...(verdict.subject ? { ...verdict.subject, name: shortened(verdict.subject.name, maxNameLength) } : {}),
      ...(causes.length > 0
        ? {
            causes: causes.map((c) => ({
              reason: c.type,
              message: shortened(c.message, maxCauseTextLength),
              field: shortened(c.field, maxCauseTextLength),
            })),
          }
        : {}),
    };
    response.status = {
      code: statusCode,
      ...(reason ? { reason } : {}),
      message: shortened(verdict.message ?? reason, maxMessageLength),
      ...(Object.keys(details).length > 0 ? { details } : {}),
    };
  }
  if (verdict.allowed && verdict.patch && verdict.patch.length > 0) {
    response.patch = Buffer.from(JSON.stringify(verdict.patch)).toString('base64');
    response.patchType = 'JSONPatch';
  }
  const warnings = sanitizeWarnings(verdict.warnings);
  if (warnings.length > 0) response.warnings = warnings;
  if (Object.keys(verdict.auditAnnotations).length > 0) response.auditAnnotations = verdict.auditAnnotations;
  return response;
}
