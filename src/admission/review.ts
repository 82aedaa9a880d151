import { ProtocolError } from '../errors.ts';
import { describeEnvelopeValue } from '../protocol/describe-envelope-value.ts';
import { objectShapeProblem } from '../protocol/object-shape-problem.ts';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The fields of admission.k8s.io/v1 AdmissionRequest that crdgate reads; the rest is ignored. */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  /**
   * The kind as the client wrote it, when the API server converted the object for this webhook (matchPolicy
   * Equivalent): crdgate registers for the hub, so this is how it learns a client's own version.
   */
  requestKind?: GroupVersionKind;
  /**
   * The resource the webhook matched (the hub's, under matchPolicy Equivalent). On a subresource such as /scale the
   * kind is the subresource's (autoscaling/v1 Scale), and only this names the custom resource.
   */
  resource?: GroupVersionResource;
  /** The resource as the client asked for it: its version is the client's on a subresource, where requestKind is the Scale's. */
  requestResource?: GroupVersionResource;
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo?: { username?: string };
  object: KubeObject | null;
  oldObject: KubeObject | null;
  dryRun?: boolean;
}

const operations: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/**
 * Checks the envelope of an AdmissionReview. Anything that is not a well-formed admission.k8s.io/v1 review is a
 * ProtocolError (HTTP 400), because without a uid there is no response the API server could accept.
 */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  const malformed = (detail: string) => new ProtocolError('REVIEW_MALFORMED', detail);
  if (!isPlainObject(body)) throw malformed('expected a JSON object');
  if (body.kind !== 'AdmissionReview')
    throw malformed(`kind must be AdmissionReview, got ${describeEnvelopeValue(body.kind)}`);
  if (body.apiVersion !== 'admission.k8s.io/v1') {
    throw malformed(`apiVersion must be admission.k8s.io/v1, got ${describeEnvelopeValue(body.apiVersion)}`);
  }
  const request = body.request;
  if (!isPlainObject(request)) throw malformed('request is missing');
  if (typeof request.uid !== 'string' || request.uid === '') throw malformed('request.uid must be a non-empty string');
  const kind = request.kind;
  if (!isGroupVersionKind(kind)) {
    throw malformed('request.kind must hold group, version and kind strings');
  }
  if (typeof request.operation !== 'string' || !operations.includes(request.operation)) {
    throw malformed(
      `request.operation must be one of ${operations.join(', ')}, got ${describeEnvelopeValue(request.operation)}`,
    );
  }
  const operation = request.operation as Operation;
  // Optional, and only a hint for wording: one that is not a group, version and kind is ignored, not refused.
  const requestKind = request.requestKind;
  // The same: only read when well-formed. A /scale review cannot be routed without `resource`, and is denied then.
  const { resource, requestResource } = request;
  const object = optionalObject(request.object, 'request.object');
  const oldObject = optionalObject(request.oldObject, 'request.oldObject');
  if ((operation === 'CREATE' || operation === 'UPDATE') && object === null) {
    throw malformed(`request.object is required for ${operation}`);
  }
  if ((operation === 'UPDATE' || operation === 'DELETE') && oldObject === null) {
    throw malformed(`request.oldObject is required for ${operation}`);
  }
  // Go's encoder writes an empty optional string as null or leaves it out: both mean "not set".
  for (const field of ['subResource', 'name', 'namespace'] as const) {
    const value = request[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw malformed(`request.${field} must be a string, got ${describeEnvelopeValue(value)}`);
    }
  }
  if (request.dryRun !== undefined && request.dryRun !== null && typeof request.dryRun !== 'boolean') {
    throw malformed(`request.dryRun must be a boolean, got ${describeEnvelopeValue(request.dryRun)}`);
  }
  const userProblem = userInfoProblem(request.userInfo);
  if (userProblem !== undefined) throw malformed(userProblem);
  return {
    uid: request.uid,
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    ...(isGroupVersionKind(requestKind)
      ? { requestKind: { group: requestKind.group, version: requestKind.version, kind: requestKind.kind } }
      : {}),
    ...(isGroupVersionResource(resource)
      ? { resource: { group: resource.group, version: resource.version, resource: resource.resource } }
      : {}),
    ...(isGroupVersionResource(requestResource)
      ? {
          requestResource: {
            group: requestResource.group,
            version: requestResource.version,
            resource: requestResource.resource,
          },
        }
      : {}),
    operation,
    object,
    oldObject,
    ...(typeof request.subResource === 'string' && request.subResource !== ''
      ? { subResource: request.subResource }
      : {}),
    ...(typeof request.name === 'string' ? { name: request.name } : {}),
    ...(typeof request.namespace === 'string' ? { namespace: request.namespace } : {}),
    ...(request.dryRun === true ? { dryRun: true } : {}),
    ...(isPlainObject(request.userInfo) && typeof request.userInfo.username === 'string'
      ? { userInfo: { username: request.userInfo.username } }
      : {}),
  };
}

function isGroupVersionKind(value: unknown): value is GroupVersionKind {
  return (
    isPlainObject(value) &&
    typeof value.group === 'string' &&
    typeof value.version === 'string' &&
    typeof value.kind === 'string'
  );
}

function isGroupVersionResource(value: unknown): value is GroupVersionResource {
  return (
    isPlainObject(value) &&
    typeof value.group === 'string' &&
    typeof value.version === 'string' &&
    typeof value.resource === 'string'
  );
}

function optionalObject(value: unknown, field: string): KubeObject | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value))
    throw new ProtocolError('REVIEW_MALFORMED', `${field} must be an object, got ${describeEnvelopeValue(value)}`);
  const problem = objectShapeProblem(value, field);
  if (problem !== undefined) throw new ProtocolError('REVIEW_MALFORMED', problem);
  return value as KubeObject;
}

/** authentication.k8s.io/v1 UserInfo as the API server writes it: strings, and a list of group names. */
function userInfoProblem(userInfo: unknown): string | undefined {
  if (userInfo === undefined || userInfo === null) return undefined;
  if (!isPlainObject(userInfo)) return `request.userInfo must be an object, got ${describeEnvelopeValue(userInfo)}`;
  for (const field of ['username', 'uid'] as const) {
    const value = userInfo[field];
    if (value !== undefined && typeof value !== 'string')
      return `request.userInfo.${field} must be a string, got ${describeEnvelopeValue(value)}`;
  }
  const { groups } = userInfo;
  if (groups !== undefined && !(Array.isArray(groups) && groups.every((group) => typeof group === 'string'))) {
    return `request.userInfo.groups must be a list of strings, got ${describeEnvelopeValue(groups)}`;
  }
  return undefined;
}
