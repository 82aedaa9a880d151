import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import { ProtocolError } from '../errors.ts';
import { describeEnvelopeValue } from '../protocol/describe-envelope-value.ts';
import { objectShapeProblem } from '../protocol/object-shape-problem.ts';

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
    const problem = objectProblem(object, `request.objects[${index}]`);
    if (problem !== undefined) malformed(problem);
  }
  return { uid, desiredAPIVersion, objects: objects as ReviewedObject[] };
}

function malformed(message: string): never {
  throw new ProtocolError('REVIEW_MALFORMED', message);
}

function objectProblem(object: unknown, where: string): string | undefined {
  if (!isPlainObject(object)) return `${where} is not an object`;
  if (object.apiVersion === undefined) return `${where} has no apiVersion`;
  if (object.kind === undefined) return `${where} has no kind`;
  return objectShapeProblem(object, where);
}
