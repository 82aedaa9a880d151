import { fieldError } from '../contract/values/field-error.ts';
import { isKubeObject, isPlainObject, namespacedName, type KubeObject } from '../contract/values/kube-object.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { maxObjectDepth, nestedDeeperThan } from '../contract/values/value-shape.ts';
import { scaleSubresourceOf, specReplicasSteps } from '../contract/scale-subresource.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation, type JudgingOptions } from './validate.ts';
import { deny, type Verdict } from './verdict.ts';
import type { StoredObjectReading, StoredObjectRef } from '../kube/stored-object-reading.ts';

// A /scale review carries an autoscaling/v1 Scale, not the custom object: no phase, no annotations, no spec but the
// replicas. Its decision therefore needs the stored object, which the server reads from the API server (the only
// review that needs anything beyond its own body); the decision itself stays a pure function of the review and of
// what was read.

interface ScaleTarget {
  compiled: CompiledContract;
  ref: StoredObjectRef;
  /** Where the Scale's spec.replicas lives in the hub object, as steps (`['spec', 'readReplicas']`). */
  replicasSteps: string[];
}

export function isScaleRequest(request: AdmissionRequest): boolean {
  return request.subResource === 'scale';
}

/** The object a /scale review needs read before it can be decided; undefined for any other review, or one denied anyway. */
export function storedObjectNeeded(registry: ContractRegistry, request: AdmissionRequest): StoredObjectRef | undefined {
  if (!isScaleRequest(request)) return undefined;
  const target = scaleTarget(registry, request);
  return 'allowed' in target ? undefined : target.ref;
}

/**
 * The validating webhook's decision on an UPDATE of /scale: the Scale's replicas are set, at the hub's
 * specReplicasPath, on a copy of the stored object (as the API server sets them), and that update is decided
 * exactly as the same change sent to the object itself: state, override annotation, exclusive rule, schema,
 * invariants, warnings, and messages in the words of the client's version. Fails closed: without a stored object
 * that is the one the Scale was made from, nothing passes.
 */
export function decideScale(
  registry: ContractRegistry,
  request: AdmissionRequest,
  reading: StoredObjectReading | undefined,
  options: JudgingOptions = {},
): Verdict {
  const target = scaleTarget(registry, request);
  if ('allowed' in target) return target;
  const { compiled, ref, replicasSteps } = target;
  const { contract } = compiled;
  const { kind, group } = contract.identity;
  const unreadable = (why: string) =>
    deny(
      'STATE_UNREADABLE',
      `the state of ${kind}.${group} "${namespacedName(ref)}" could not be read for a scale request: ${why}`,
    );
  if (reading === undefined) {
    return unreadable(
      'crdgate has no API server client to read it with (in a cluster it reads with its ServiceAccount token; outside, give it a kubeconfig)',
    );
  }
  if ('problem' in reading) return unreadable(reading.problem);
  const stored = reading.object;
  const hubApiVersion = `${group}/${contract.hub}`;
  if (!isKubeObject(stored) || stored.apiVersion !== hubApiVersion || stored.kind !== kind) {
    return unreadable(`the API server answered with something other than a ${hubApiVersion} ${kind}`);
  }
  // As every review's objects: nothing recursive runs on an object deeper than any real one.
  if (nestedDeeperThan(stored, maxObjectDepth))
    return unreadable(`the stored object is nested more than ${maxObjectDepth} levels deep`);
  const scaleVersion = request.oldObject?.metadata?.resourceVersion;
  const storedVersion = stored.metadata?.resourceVersion;
  if (typeof scaleVersion !== 'string' || scaleVersion === '')
    return unreadable('the old Scale has no resourceVersion to match the stored object with');
  if (storedVersion !== scaleVersion) {
    return unreadable(
      `the stored object is at resourceVersion ${String(storedVersion)} and the Scale at ${scaleVersion}: the object changed in between (try again)`,
    );
  }
  const replicas = scaleReplicas(request.object);
  if (typeof replicas === 'string') {
    return deny('OBJECT_INVALID', `Scale.autoscaling "${ref.name}" is invalid: spec.replicas: ${replicas}`, [
      fieldError('spec.replicas', 'FieldValueInvalid', replicas),
    ]);
  }
  const object = withValueAt(stored, replicasSteps, replicas);
  if (object === undefined) {
    return unreadable(
      `the stored object has no object at ${replicasSteps.slice(0, -1).join('.')} to set ${replicasSteps.join('.')} in`,
    );
  }
  const clientVersion =
    request.requestResource?.group === group && request.requestResource.resource === contract.identity.plural
      ? request.requestResource.version
      : contract.hub;
  const { subResource: _scale, resource: _resource, requestResource: _requestResource, ...rest } = request;
  return decideValidation(
    registry,
    {
      ...rest,
      kind: { group, version: contract.hub, kind },
      requestKind: { group, version: clientVersion, kind },
      operation: 'UPDATE',
      object,
      oldObject: stored,
    },
    {},
    options,
  );
}

/** The contract a /scale review is about, found by its resource (its kind is the Scale's), or the denial. */
function scaleTarget(registry: ContractRegistry, request: AdmissionRequest): ScaleTarget | Verdict {
  const resource = request.resource;
  if (resource === undefined)
    return deny(
      'KIND_UNKNOWN',
      'crdgate cannot tell which resource this /scale review is about: it names no request.resource',
    );
  const compiled = registry.contracts.find(
    (c) => c.contract.identity.group === resource.group && c.contract.identity.plural === resource.resource,
  );
  if (compiled === undefined) {
    const known = registry.contracts
      .map((c) => `${c.contract.identity.plural}.${c.contract.identity.group}`)
      .join(', ');
    return deny(
      'KIND_UNKNOWN',
      `crdgate has no contract for the resource ${resource.resource}.${resource.group || 'core'} (it knows: ${known || 'nothing'})`,
    );
  }
  const { contract } = compiled;
  const id = `${contract.identity.plural}.${contract.identity.group}`;
  const scale = scaleSubresourceOf(contract, contract.hub);
  const replicasSteps = scale === undefined ? undefined : specReplicasSteps(scale.specReplicasPath);
  if (replicasSteps === undefined) {
    return deny(
      'CHANGE_FORBIDDEN',
      `crdgate cannot judge /scale of ${id}: its hub version ${contract.hub} declares no scale subresource with a specReplicasPath under .spec`,
    );
  }
  if (request.operation !== 'UPDATE')
    return deny('CHANGE_FORBIDDEN', `crdgate judges only UPDATE of /scale, not ${request.operation}`);
  if (!request.name)
    return deny('CHANGE_FORBIDDEN', `crdgate cannot judge /scale of ${id}: the review names no object`);
  const namespaced = contract.identity.scope === 'Namespaced';
  if (namespaced && !request.namespace)
    return deny('CHANGE_FORBIDDEN', `crdgate cannot judge /scale of ${id}: the review names no namespace`);
  return {
    compiled,
    ref: {
      group: contract.identity.group,
      version: contract.hub,
      resource: contract.identity.plural,
      ...(namespaced ? { namespace: request.namespace! } : {}),
      name: request.name,
    },
    replicasSteps,
  };
}

/** The Scale's spec.replicas: an int32 that Go leaves out when it is 0; or why it is not one. */
export function scaleReplicas(scale: KubeObject | null): number | string {
  const spec = scale?.spec;
  if (spec === undefined || spec === null) return 0;
  if (!isPlainObject(spec)) return 'the Scale has no spec object';
  const replicas = spec.replicas;
  if (replicas === undefined || replicas === null) return 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0 || replicas > 2 ** 31 - 1) {
    return `must be a whole number from 0 to ${2 ** 31 - 1}, got ${JSON.stringify(replicas)}`;
  }
  return replicas;
}

/**
 * A copy of `object` with `value` at `steps`, creating the objects on the way as the API server does (its
 * SetNestedField); undefined when a step on the way holds something other than an object, where the API server
 * fails too. The input is not changed.
 */
export function withValueAt(object: KubeObject, steps: readonly string[], value: unknown): KubeObject | undefined {
  const set = (node: unknown, index: number): unknown => {
    if (index === steps.length) return value;
    if (node !== undefined && !isPlainObject(node)) return undefined;
    const step = steps[index]!;
    const child = set(node !== undefined && Object.hasOwn(node, step) ? node[step] : undefined, index + 1);
    return child === undefined ? undefined : { ...node, [step]: child };
  };
  return set(object, 0) as KubeObject | undefined;
}
