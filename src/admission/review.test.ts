import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors.ts';
import { parseAdmissionReview } from './review.ts';

const review = (request: Record<string, unknown>) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request,
});
const base = {
  uid: 'u1',
  kind: { group: 'geo.example.com', version: 'v1', kind: 'GeoDatabase' },
  operation: 'CREATE',
  object: { apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase', metadata: { name: 'a' } },
};

function malformed(body: unknown): string {
  try {
    parseAdmissionReview(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe('REVIEW_MALFORMED');
    return (error as Error).message;
  }
  throw new Error('expected a ProtocolError');
}

describe('parseAdmissionReview', () => {
  it('reads the fields the decisions need', () => {
    const request = parseAdmissionReview(
      review({ ...base, namespace: 'maps', name: 'a', dryRun: true, subResource: '' }),
    );
    expect(request).toEqual({ ...base, oldObject: null, namespace: 'maps', name: 'a', dryRun: true });
  });

  it.each([
    ['a string', 'nope', 'JSON object'],
    ['v1beta1', { ...review(base), apiVersion: 'admission.k8s.io/v1beta1' }, 'admission.k8s.io/v1'],
    ['a ConversionReview', { ...review(base), kind: 'ConversionReview' }, 'AdmissionReview'],
    ['an empty uid', review({ ...base, uid: '' }), 'request.uid'],
    ['no kind', review({ ...base, kind: 'GeoDatabase' }), 'request.kind'],
    ['PATCH', review({ ...base, operation: 'PATCH' }), 'request.operation'],
    ['UPDATE without oldObject', review({ ...base, operation: 'UPDATE' }), 'request.oldObject'],
    ['DELETE without oldObject', review({ ...base, operation: 'DELETE', object: null }), 'request.oldObject'],
    ['an object that is a list', review({ ...base, object: [] }), 'request.object'],
    ['metadata that is a string', review({ ...base, object: { metadata: 'x' } }), 'request.object'],
    ['a name that is a number', review({ ...base, name: 7 }), 'request.name'],
    [
      "an object's name that is a number",
      review({ ...base, object: { ...base.object, metadata: { name: 7 } } }),
      'request.object.metadata.name',
    ],
    [
      "an old object's namespace that is a list",
      review({ ...base, operation: 'DELETE', object: null, oldObject: { metadata: { namespace: [] } } }),
      'request.oldObject.metadata.namespace',
    ],
    [
      "an object's annotation value that is null",
      review({ ...base, object: { ...base.object, metadata: { annotations: { a: null } } } }),
      'request.object.metadata.annotations',
    ],
    [
      "an object's kind that is a number",
      review({ ...base, object: { ...base.object, kind: 1 } }),
      'request.object.kind',
    ],
    ['a userInfo that is a string', review({ ...base, userInfo: 'admin' }), 'request.userInfo'],
    ['a username that is a number', review({ ...base, userInfo: { username: 1 } }), 'request.userInfo.username'],
    ['groups that are not strings', review({ ...base, userInfo: { groups: [1] } }), 'request.userInfo.groups'],
    ['a dryRun that is a string', review({ ...base, dryRun: 'true' }), 'request.dryRun'],
  ])('refuses %s, naming what is wrong', (_label, body, named) => {
    expect(malformed(body)).toContain(named);
  });

  it("reads requestKind, the client's own version when the API server converted the object", () => {
    const requestKind = { group: 'geo.example.com', version: 'v1beta1', kind: 'GeoDatabase' };
    expect(parseAdmissionReview(review({ ...base, requestKind })).requestKind).toEqual(requestKind);
  });

  it('ignores a requestKind that is not a group, version and kind: it only words messages', () => {
    expect(parseAdmissionReview(review({ ...base, requestKind: { group: 'geo.example.com', version: 1 } }))).toEqual({
      ...base,
      oldObject: null,
    });
  });

  it('reads null in an optional string (name, namespace, subResource) as not set, as Go writes it', () => {
    const request = parseAdmissionReview(review({ ...base, name: null, namespace: null, subResource: null }));
    expect(request).toEqual({ ...base, oldObject: null });
  });
});
