import { ProtocolError, protocolErrorBody } from '../errors.ts';
import { fieldError } from '../contract/values/field-error.ts';
import { isPlainObject, namespacedName, objectRef } from '../contract/values/kube-object.ts';
import { renderFieldPath } from '../contract/values/field-path.ts';
import { maxObjectDepth, nestedDeeperThan, pathDeeperThan } from '../contract/values/value-shape.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { decideMutation } from './mutate.ts';
import { parseAdmissionReview, type AdmissionRequest } from './review.ts';
import type { StoredObjectReading, StoredObjectRef } from '../kube/stored-object-reading.ts';
import { decideScale, isScaleRequest, storedObjectNeeded } from './scale.ts';
import { decideValidation } from './validate.ts';
import { deny, errored, toAdmissionResponse, type Verdict } from './verdict.ts';

export type AdmissionWebhook = 'validate' | 'mutate';

/** What the HTTP layer sends, plus what it logs and counts; nothing here touches HTTP itself. */
export interface AdmissionOutcome {
  httpStatus: number;
  body: unknown;
  summary: {
    uid?: string;
    kind?: string;
    object?: string;
    operation?: string;
    subResource?: string;
    dryRun?: boolean;
    decision: 'allowed' | 'denied' | 'rejected';
    code: string;
    /** A denial's message, as the user sees it (bounded like the response). */
    message?: string;
    patched?: boolean;
    /** The warnings sent back, sanitized and bounded like the response. */
    warnings?: string[];
  };
  /** An exception crdgate caught while deciding: logged with its stack, answered as a denial. */
  failure?: unknown;
}

/** What a decision was given beyond the review: for /scale, the stored object the server read (nothing: no client). */
export interface AdmissionInputs {
  stored?: StoredObjectReading;
}

const decisions: Record<
  AdmissionWebhook,
  (registry: ContractRegistry, request: AdmissionRequest, inputs: AdmissionInputs) => Verdict
> = {
  validate: (registry, request, inputs) =>
    isScaleRequest(request) ? decideScale(registry, request, inputs.stored) : decideValidation(registry, request),
  mutate: (registry, request) => decideMutation(registry, request),
};

/**
 * The object the validating webhook must have read before it can decide this review (a /scale review's custom
 * object), or undefined: every other review is decided from its body alone. Costs two property reads on any other.
 */
export function storedObjectToRead(
  webhook: AdmissionWebhook,
  registry: ContractRegistry,
  body: unknown,
): StoredObjectRef | undefined {
  if (
    webhook !== 'validate' ||
    !isPlainObject(body) ||
    !isPlainObject(body.request) ||
    body.request.subResource !== 'scale'
  )
    return undefined;
  try {
    return storedObjectNeeded(registry, parseAdmissionReview(body));
  } catch (error) {
    // A malformed review is answered as one by handleAdmissionReview; there is nothing to read for it.
    if (error instanceof ProtocolError) return undefined;
    throw error;
  }
}

/**
 * The handler contract: every well-formed review gets a complete response with its uid, whatever happens inside;
 * a decision that throws is answered `allowed: false` (fail closed) instead of crashing or hanging the API server.
 */
export function handleAdmissionReview(
  webhook: AdmissionWebhook,
  registry: ContractRegistry,
  body: unknown,
  inputs: AdmissionInputs = {},
): AdmissionOutcome {
  return answerReview(
    body,
    webhook === 'validate',
    (request) => tooDeep(request) ?? decisions[webhook](registry, request, inputs),
  );
}

/**
 * A review answered by `decide`, as every crdgate webhook answers one: a malformed envelope is rejected, a decision
 * that throws (or a validating one that patches) is answered `allowed: false`, the response carries the uid, and
 * the summary says what was decided for the log and the metrics.
 */
export function answerReview(
  body: unknown,
  validating: boolean,
  decide: (request: AdmissionRequest) => Verdict,
): AdmissionOutcome {
  let request: AdmissionRequest;
  try {
    request = parseAdmissionReview(body);
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return {
      httpStatus: error.httpStatus,
      body: protocolErrorBody(error),
      summary: { decision: 'rejected', code: error.code },
    };
  }
  let verdict: Verdict;
  let failure: unknown;
  try {
    verdict = decide(request);
    if (validating && verdict.patch) throw new Error('a validating decision produced a patch');
  } catch (error) {
    failure = error;
    verdict = errored(error instanceof Error ? error.message : String(error));
  }
  const response = toAdmissionResponse(request.uid, verdict);
  return {
    httpStatus: 200,
    body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response },
    summary: {
      uid: request.uid,
      kind: `${request.kind.kind}.${request.kind.group}`,
      // A CREATE with generateName has no name yet: the object's own reference says `generateName*`.
      object: request.name
        ? namespacedName({ namespace: request.namespace, name: request.name })
        : objectRef(request.object ?? request.oldObject),
      operation: request.operation,
      ...(request.subResource ? { subResource: request.subResource } : {}),
      ...(request.dryRun ? { dryRun: true } : {}),
      decision: verdict.allowed ? 'allowed' : 'denied',
      code: verdict.code,
      ...(response.status ? { message: response.status.message } : {}),
      ...(response.patch ? { patched: true } : {}),
      ...(response.warnings ? { warnings: response.warnings } : {}),
    },
    ...(failure !== undefined ? { failure } : {}),
  };
}

/**
 * An object nested deeper than any real one is refused before anything recursive (validation, equality, the
 * response's JSON) can overflow the stack on it. A DELETE is decided anyway: its rules read metadata, and a
 * broken object must stay deletable.
 */
function tooDeep(request: AdmissionRequest): Verdict | undefined {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return undefined;
  for (const [which, object] of [
    ['object', request.object],
    ['oldObject', request.oldObject],
  ] as const) {
    if (!nestedDeeperThan(object, maxObjectDepth)) continue;
    const path = pathDeeperThan(object, maxObjectDepth)!;
    const field = `${renderFieldPath('', path.slice(0, 4))}...`;
    const message = `${which === 'object' ? 'the object' : 'the stored object'} is nested more than ${maxObjectDepth} levels deep`;
    return deny('OBJECT_INVALID', `${objectRef(request.object ?? request.oldObject)}: ${field}: ${message}`, [
      fieldError(field, 'FieldValueInvalid', message),
    ]);
  }
  return undefined;
}
