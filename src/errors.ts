/**
 * The one catalog of crdgate's error codes. Codes are stable: tests, logs and metrics use them, never the wording.
 *
 * Protocol errors answer the HTTP request itself (the API server then applies the webhook's failurePolicy),
 * decision codes travel inside a well-formed AdmissionReview response as its `status`; command errors end a run of
 * the CLI with their exit status.
 */
export const protocolErrors = {
  BODY_NOT_JSON: { httpStatus: 400, summary: 'the body is not valid JSON' },
  REVIEW_MALFORMED: { httpStatus: 400, summary: 'the body is not a well-formed review' },
  BODY_TOO_LARGE: { httpStatus: 413, summary: 'the body is larger than this endpoint accepts' },
  BODY_TOO_MANY_VALUES: {
    httpStatus: 413,
    summary: 'the body holds more JSON values than crdgate parses in one request',
  },
  SERVER_BUSY: { httpStatus: 503, summary: 'crdgate is reading as many request bodies as its memory allows; retry' },
  CONTENT_TYPE_UNSUPPORTED: { httpStatus: 415, summary: 'the body must be application/json' },
  ROUTE_NOT_FOUND: { httpStatus: 404, summary: 'no such endpoint' },
  CLIENT_CERTIFICATE_REQUIRED: {
    httpStatus: 401,
    summary: 'a client certificate signed by the configured client CA is required',
  },
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
  /** A CRD revision the CRD gate judged unsafe (its own rules, or the live objects it must keep serving), not overridden. */
  CRD_REVISION_UNSAFE: { statusCode: 403, reason: 'Forbidden' },
  /** A /scale review whose object could not be read from the API server (or was not the Scale's): retry later. */
  STATE_UNREADABLE: { statusCode: 503, reason: 'ServiceUnavailable' },
  INTERNAL_ERROR: { statusCode: 500, reason: 'InternalError' },
} as const;

export type DecisionCode = keyof typeof decisionCodes;

/** Outcomes only `crdgate check` reaches: about a manifest tree and its previous revision, not one review. */
export const treeCheckCodes = {
  OBJECT_DUPLICATE: 'the same object (group, kind, namespace, name) appears more than once in the tree',
  OLD_OBJECT_UNCONVERTIBLE:
    "the previous revision's object cannot be converted to the hub version, so the change cannot be judged",
  KIND_MISMATCH:
    "the object's resource is a contract's, but its kind (or the contract's resource) is not named as the CRD names it: crdgate's webhook would deny every write of it, or never be called",
} as const;

export type TreeCheckCode = keyof typeof treeCheckCodes;

/** What fails a CustomResourceDefinition of the tree against its previous revision (the JUnit failure's type). */
export const crdRevisionCodes = {
  CRD_REVISION_BREAKING: 'the CRD changed from its previous revision in a way a rule set to error reports',
  STORED_OBJECTS_BREAKING:
    'objects the CRD stores fare worse under its new revision in a way a finding of error severity reports',
} as const;

/**
 * Why a document of a manifest tree could not be read at all. `crdgate check` reports it as a failure of its file
 * and goes on with the rest: a CI job must get its whole report, and what the document holds was not checked.
 */
export const manifestErrorCodes = {
  MANIFEST_NOT_YAML: 'a document is not valid YAML (a duplicate key, tabs as indentation, an unclosed bracket)',
  MANIFEST_NOT_JSON: 'a .json file (or JSON on standard input) is not valid JSON',
} as const;

export type ManifestErrorCode = keyof typeof manifestErrorCodes;

/** Why an object could not be converted: the `code` of a ConversionError, also on the metrics of /convert. */
export const conversionErrorCodes = {
  UNKNOWN_VERSION: "the object's or the desired apiVersion is not a version the contract declares",
  WRONG_GROUP: "the object's or the desired apiVersion belongs to another API group than the contract's",
  WRONG_KIND: "the object is of another kind than the contract's",
  CONVERSION_FAILED: "the contract's conversion threw: it met a value it cannot translate",
  INVALID_CONVERSION_RESULT:
    "the contract's conversion returned something the API server would reject (a contract bug)",
  STASH_TOO_LARGE: "what an older version cannot hold does not fit in the object's annotations",
  CONVERTED_BY_OWNER:
    "the contract does not own its CRD and has no conversion of that version: the CRD's owner converts it, not crdgate",
} as const;

export type ConversionErrorCode = keyof typeof conversionErrorCodes;

/**
 * What a command that ran to its end answers, as its exit status: done, or "no" (objects denied, writes refused, a
 * migration that could not finish). A command returns one of these; errors (below) are thrown.
 */
export const commandAnswers = {
  DONE: { exitStatus: 0, summary: 'the command did what it was asked, and every object passed' },
  NO: { exitStatus: 1, summary: 'the answer is no: an object denied, a write refused, a run that could not finish' },
} as const;

export type CommandAnswer = keyof typeof commandAnswers;

/**
 * Why a command of the CLI failed, and the exit status it ends with. A command throws a CommandError (UsageError is
 * the USAGE one) or maps its library's error to one; cli.ts's main turns it into one line on stderr (and the
 * error's detail, when it has one, below it) and this exit status, and nothing else decides the exit of an error.
 */
export const commandErrors = {
  USAGE: { exitStatus: 2, summary: 'a command, flag or argument is unknown, missing or malformed' },
  INPUT_INVALID: {
    exitStatus: 2,
    summary: 'a file the command was given cannot be read, or does not hold what the command takes',
  },
  CONTRACT_INVALID: {
    exitStatus: 2,
    summary: 'a contract module cannot be loaded, or crdgate or kube-apiserver would refuse its contract',
  },
  ENGINE_UNAVAILABLE: {
    exitStatus: 2,
    summary: "the API server engine (kube-apiserver's validation, built with Go) cannot be started",
  },
  SYSTEM_REFUSED: {
    exitStatus: 2,
    summary: 'the operating system refused what the user can fix: a port in use, a folder that cannot be written',
  },
  KUBECONFIG_MISSING: { exitStatus: 2, summary: 'no kubeconfig given or found, and no in-cluster service account' },
  KUBECONFIG_INVALID: {
    exitStatus: 2,
    summary: 'the kubeconfig cannot be loaded or used: unreadable, no current cluster, credentials that cannot be had',
  },
  KUBE_CONTEXT_UNKNOWN: { exitStatus: 2, summary: 'the kubeconfig has no context of the name given' },
  CLUSTER_UNREADABLE: {
    exitStatus: 2,
    summary:
      'a read the command needs from the cluster failed: RBAC refused it, or the API server answered an error or could not be reached',
  },
  MIGRATION_REFUSED: {
    exitStatus: 2,
    summary:
      'the cluster rules the migration out before anything is written: no such CRD, API server unreachable, credentials refused, --via status without a status subresource',
  },
  /** Also the end of a migration whose report says "interrupted": the summary is printed, then this error. */
  MIGRATION_INTERRUPTED: { exitStatus: 3, summary: 'the migration was stopped by SIGTERM or SIGINT' },
  KUBE_BINARIES_UNAVAILABLE: {
    exitStatus: 2,
    summary:
      'kube-apiserver, etcd and kubectl are neither in $KUBEBUILDER_ASSETS nor in the cache, and cannot be built with Go here',
  },
  DEV_START_FAILED: {
    exitStatus: 2,
    summary: "crdgate dev could not start its control plane or the contracts' server in front of it",
  },
  NPM_FAILED: {
    exitStatus: 2,
    summary: 'npm failed at a step init needs: packing crdgate into the project, or writing its package-lock.json',
  },
} as const;

export type CommandErrorCode = keyof typeof commandErrors;

/**
 * What a command warns of on stderr without failing, by a stable code: the line is `warning: ... (CODE)`, so that a
 * script or a test can find it whatever its words.
 */
export const commandWarnings = {
  READS_UNDECLARED: {
    summary:
      'a contract leaves reads.labels or reads.annotations out: every such edit of its kind reaches crdgate, and waits on it in an outage',
  },
  MEMORY_BELOW_ESTIMATE: {
    summary:
      "--memory-limit is below what the contracts' schemas are measured to hold: the pod may be killed, and every write of its kinds refused meanwhile",
  },
} as const;

export type CommandWarningCode = keyof typeof commandWarnings;

/** One warning line of a command's stderr, its code at the end. */
export function commandWarningLine(code: CommandWarningCode, text: string): string {
  return `warning: ${text} (${code})\n`;
}

export class CommandError extends Error {
  override name = 'CommandError';
  readonly code: CommandErrorCode;
  readonly exitStatus: number;
  /** What another program said of the failure (npm's errors), printed as it is below the one line. */
  readonly detail: string | undefined;

  constructor(code: CommandErrorCode, message: string, detail?: string) {
    super(message);
    this.code = code;
    this.exitStatus = commandErrors[code].exitStatus;
    this.detail = detail;
  }
}

const errorBrand: unique symbol = Symbol.for('crdgate.error');

/**
 * `instanceof` for crdgate's error classes that holds across copies of crdgate. A user's contract imports
 * `crdgate`; when the CLI that loads it is another copy of the same code (crdgate installed from a folder, or run
 * from its source), each class exists twice, and a plain `instanceof` would miss an error thrown by the other copy
 * (a broken contract would then crash with a stack trace instead of one line). Instances carry a global brand.
 */
export function brandError(error: Error, className: string): void {
  Object.defineProperty(error, errorBrand, { value: className, enumerable: false });
}

export function isBrandedError(value: unknown, className: string): boolean {
  return typeof value === 'object' && value !== null && (value as { [errorBrand]?: unknown })[errorBrand] === className;
}
