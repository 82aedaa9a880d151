import { isPlainObject, type KubeObject } from '../contract/kube-object.ts';
import { ProtocolError } from '../errors.ts';
import { describeEnvelopeValue } from '../protocol/describe-envelope-value.ts';

export const conversionReviewApiVersion = 'apiextensions.k8s.io/v1';

/** An object of a review: the envelope check guarantees what routing it to a contract needs. */
export type ReviewedObject = KubeObject & { apiVersion: string; kind: string };

/** The parts of a ConversionReview request crdgate reads. */
export interface ConversionReviewRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: ReviewedObject[];
}

/**
 * Checks the envelope only; whether each object converts is the review's business, not the envelope's. A body that
 * is not a ConversionReview is a ProtocolError (HTTP 400): the API server then fails the conversion itself.
 */
export function parseConversionReviewRequest(body: unknown): ConversionReviewRequest {
  if (!isPlainObject(body)) malformed('the body is not a JSON object');
  if (body.apiVersion !== conversionReviewApiVersion || body.kind !== 'ConversionReview') {
    malformed(
      `expected apiVersion ${conversionReviewApiVersion} and kind ConversionReview, ` +
        `got ${describeEnvelopeValue(body.apiVersion)} and ${describeEnvelopeValue(body.kind)}`,
    );
  }
  const { request } = body;
  if (!isPlainObject(request)) malformed('request is missing or not an object');
  const { uid, desiredAPIVersion, objects } = request;
  if (typeof uid !== 'string' || uid === '') {
    malformed(`request.uid must be a non-empty string, got ${describeEnvelopeValue(uid)}`);
  }
  if (typeof desiredAPIVersion !== 'string' || desiredAPIVersion === '') {
    const got = describeEnvelopeValue(desiredAPIVersion);
    malformed(`request.desiredAPIVersion must be a non-empty string, got ${got}`);
  }
  if (!Array.isArray(objects)) malformed(`request.objects must be an array, got ${describeEnvelopeValue(objects)}`);
  for (const [index, object] of objects.entries()) {
    const problem = objectProblem(object);
    if (problem !== undefined) malformed(`request.objects[${index}] ${problem}`);
  }
  return { uid, desiredAPIVersion, objects: objects as ReviewedObject[] };
}

function malformed(message: string): never {
  throw new ProtocolError('REVIEW_MALFORMED', message);
}

function objectProblem(object: unknown): string | undefined {
  if (!isPlainObject(object)) return 'is not an object';
  if (typeof object.apiVersion !== 'string') return 'has no apiVersion';
  if (typeof object.kind !== 'string') return 'has no kind';
  if (object.metadata !== undefined && !isPlainObject(object.metadata)) return 'has a metadata that is not an object';
  return undefined;
}

