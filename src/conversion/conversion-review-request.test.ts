import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors.ts';
import { parseConversionReviewRequest } from './conversion-review-request.ts';

const object = { apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase', metadata: { name: 'a' } };
const review = (request: unknown) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request });
const request = { uid: 'u-1', desiredAPIVersion: 'geo.example.com/v1beta1', objects: [object] };

describe('parseConversionReviewRequest', () => {
  it('reads a well-formed review', () => {
    expect(parseConversionReviewRequest(review(request))).toEqual(request);
    expect(parseConversionReviewRequest(review({ ...request, objects: [] }))).toEqual({ ...request, objects: [] });
  });

  it.each([
    ['a body that is no object', [review(request)], 'the body is not a JSON object'],
    ['null', null, 'the body is not a JSON object'],
    [
      'an AdmissionReview',
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request },
      'expected apiVersion apiextensions.k8s.io/v1 and kind ConversionReview, got "admission.k8s.io/v1" and "AdmissionReview"',
    ],
    [
      'a v1beta1 review',
      { ...review(request), apiVersion: 'apiextensions.k8s.io/v1beta1' },
      'expected apiVersion apiextensions.k8s.io/v1 and kind ConversionReview, got "apiextensions.k8s.io/v1beta1" and "ConversionReview"',
    ],
    ['no request', review(undefined), 'request is missing or not an object'],
    ['a uid that is no string', review({ ...request, uid: 7 }), 'request.uid must be a non-empty string, got a number'],
    ['an empty uid', review({ ...request, uid: '' }), 'request.uid must be a non-empty string, got ""'],
    [
      'no desiredAPIVersion',
      review({ ...request, desiredAPIVersion: undefined }),
      'request.desiredAPIVersion must be a non-empty string, got nothing',
    ],
    [
      'objects that are no array',
      review({ ...request, objects: {} }),
      'request.objects must be an array, got an object',
    ],
    [
      'an object that is no object',
      review({ ...request, objects: [object, 'x'] }),
      'request.objects[1] is not an object',
    ],
    [
      'an object without apiVersion',
      review({ ...request, objects: [{ kind: 'GeoDatabase' }] }),
      'request.objects[0] has no apiVersion',
    ],
    [
      'an object without kind',
      review({ ...request, objects: [{ apiVersion: 'v1' }] }),
      'request.objects[0] has no kind',
    ],
    [
      'an object with odd metadata',
      review({ ...request, objects: [{ ...object, metadata: [] }] }),
      'request.objects[0].metadata must be an object, got an array',
    ],
    [
      'an object whose name is a number',
      review({ ...request, objects: [object, { ...object, metadata: { name: 7 } }] }),
      'request.objects[1].metadata.name must be a string, got a number',
    ],
    [
      'an object whose label value is not a string',
      review({ ...request, objects: [{ ...object, metadata: { labels: { team: false } } }] }),
      'request.objects[0].metadata.labels["team"] must be a string, got a boolean',
    ],
  ])('refuses %s with REVIEW_MALFORMED, naming what is wrong', (_case, body, detail) => {
    const refusal = malformed(body);
    expect(refusal.code).toBe('REVIEW_MALFORMED');
    expect(refusal.message).toContain(detail);
  });

  it('never repeats a long value in a message', () => {
    expect(malformed({ ...review(request), apiVersion: 'x'.repeat(10_000) }).message.length).toBeLessThan(200);
  });
});

function malformed(body: unknown): ProtocolError {
  try {
    parseConversionReviewRequest(body);
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error('expected a ProtocolError');
}
