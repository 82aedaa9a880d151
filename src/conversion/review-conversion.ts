import { objectRef, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { maxObjectDepth, nestedDeeperThan } from '../contract/values/value-shape.ts';
import { convertObject } from './convert-object.ts';
import { ConversionError } from './conversion-error.ts';
import { ProtocolError, type ProtocolErrorCode } from '../errors.ts';
import {
  conversionReviewApiVersion,
  parseConversionReviewRequest,
  type ConversionReviewRequest,
  type ReviewedObject,
} from './conversion-review-request.ts';

export type ConversionResult = { status: 'Success' } | { status: 'Failed'; message: string };

export interface ConversionReviewResponse {
  apiVersion: typeof conversionReviewApiVersion;
  kind: 'ConversionReview';
  response: { uid: string; convertedObjects: KubeObject[]; result: ConversionResult };
}

export type ConversionReviewOutcome =
  | { status: 200; review: ConversionReviewResponse }
  | { status: 400; error: { code: ProtocolErrorCode; message: string } };

/**
 * Answers a ConversionReview. A well-formed review always gets 200, even when an object fails: the failure is in
 * `result`, and it fails the whole batch (the API server would discard a partial one anyway), so the conversion
 * stops at the first failing object. Only a body that is not a ConversionReview gets 400.
 */
export function reviewConversion(body: unknown, registry: ContractRegistry): ConversionReviewOutcome {
  let request: ConversionReviewRequest;
  try {
    request = parseConversionReviewRequest(body);
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return { status: 400, error: { code: error.code, message: error.message } };
  }
  const { uid, desiredAPIVersion, objects } = request;
  const convertedObjects: KubeObject[] = [];
  for (const object of objects) {
    const converted = convertOne(object, desiredAPIVersion, registry);
    if (typeof converted === 'string') return answer(uid, [], { status: 'Failed', message: converted });
    convertedObjects.push(converted);
  }
  return answer(uid, convertedObjects, { status: 'Success' });
}

/** The converted object, or why it failed. */
function convertOne(
  object: ReviewedObject,
  desiredApiVersion: string,
  registry: ContractRegistry,
): KubeObject | string {
  // Refused before any recursive step (a conversion, the response's JSON) can overflow the stack on it.
  if (nestedDeeperThan(object, maxObjectDepth)) {
    return `cannot convert ${object.kind} ${objectRef(object)}: it is nested more than ${maxObjectDepth} levels deep`;
  }
  const { group } = splitApiVersion(object.apiVersion);
  const compiled = registry.lookup(group, object.kind);
  if (!compiled) {
    return (
      `cannot convert ${object.kind} ${objectRef(object)} from ${object.apiVersion} to ${desiredApiVersion}: ` +
      `crdgate has no contract for kind ${object.kind} in group ${group || '(core)'}`
    );
  }
  try {
    return convertObject(compiled.contract, object, desiredApiVersion);
  } catch (error) {
    if (error instanceof ConversionError) return error.message;
    // Even crdgate's own bug is answered as a failed conversion with HTTP 200: the API server reports a
    // Failed result to the user, while a 500 only says the webhook is broken.
    return `crdgate failed to convert ${object.kind} ${objectRef(object)} from ${object.apiVersion} to ${desiredApiVersion}: ${(error as Error)?.message ?? String(error)}`;
  }
}

function answer(
  uid: string,
  convertedObjects: KubeObject[],
  result: ConversionResult,
): { status: 200; review: ConversionReviewResponse } {
  return {
    status: 200,
    review: {
      apiVersion: conversionReviewApiVersion,
      kind: 'ConversionReview',
      response: { uid, convertedObjects, result },
    },
  };
}
