import type { ObjectParts } from '../admission/judged-parts.ts';
import { readMetadataFields } from '../contract/contract-reads.ts';
import type { PathSegment } from '../contract/values/field-path.ts';
import { isPlainObject } from '../contract/values/kube-object.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  and,
  eq,
  ident,
  index,
  int,
  isIn,
  member,
  method,
  ne,
  not,
  optionalIndex,
  optionalMember,
  or,
  str,
  type Cel,
} from '../policy/cel.ts';

// The matchConditions of crdgate's webhooks (admissionregistration.k8s.io/v1, GA since Kubernetes 1.30): CEL the API
// server evaluates before calling a webhook, with `object` and `oldObject` (null where the operation has none) and
// `request`. The webhook is called only when every condition is true, so each says when crdgate has something to
// decide, and an expression must never fail on an object the API server lets through: under failurePolicy Fail, a
// condition that errs refuses the request without calling crdgate. Fields that may be absent are read through
// optionals (`request.subResource`, for one, is absent unless there is a subresource).

export interface MatchCondition {
  name: string;
  expression: string;
}

const object = ident('object');
const oldObject = ident('oldObject');
const request = ident('request');

/** `request.operation != 'OPERATION' || condition`: the condition holds only for that operation. */
export function onlyFor(operation: 'UPDATE' | 'DELETE', condition: Cel): Cel {
  // `operation` is always set; other fields of `request` may be absent.
  return or(ne(member(request, 'operation'), str(operation)), condition);
}

/**
 * True when the old and the new object differ in one of these parts, as crdgate's decisions compare them
 * (judged-parts.ts, sameInParts); undefined when the API server cannot be asked (a schema that keeps unknown
 * top-level fields gives the comparison of every top-level field no bound), and every update must reach crdgate.
 */
export function partsChanged(parts: ObjectParts, schema: JSONSchemaProps | undefined): Cel | undefined {
  const changes: Cel[] = [];
  if (parts.content) {
    if (schema === undefined || keepsUnknownTopLevelFields(schema)) return undefined;
    changes.push(not(contentUnchanged()));
  }
  if (parts.metadata !== undefined) {
    const metadataOf = (root: Cel) => optionalMember(root, 'metadata');
    for (const field of readMetadataFields) {
      const keys =
        field === 'labels' ? parts.metadata.labels : field === 'annotations' ? parts.metadata.annotations : 'all';
      const at = (root: Cel) => optionalIndex(metadataOf(root), str(field));
      if (keys === 'all') changes.push(ne(at(object), at(oldObject)));
      else
        for (const key of keys)
          changes.push(ne(optionalIndex(at(object), str(key)), optionalIndex(at(oldObject), str(key))));
    }
  }
  if (parts.status === 'whole')
    changes.push(ne(optionalIndex(object, str('status')), optionalIndex(oldObject, str('status'))));
  else if (parts.status !== undefined) {
    for (const path of parts.status.paths) changes.push(ne(optionalPath(object, path), optionalPath(oldObject, path)));
  }
  return or(...changes);
}

/**
 * Every top-level field but metadata and status present in both objects and equal: one comprehension over each
 * object's keys, which a schema that prunes bounds (judged-parts.ts compares the same keys).
 */
function contentUnchanged(): Cel {
  const key = ident('k');
  const outside = (each: Cel) => or(eq(key, str('metadata')), eq(key, str('status')), each);
  return and(
    method(object, 'all', key, outside(and(isIn(key, oldObject), eq(index(object, key), index(oldObject, key))))),
    method(oldObject, 'all', key, outside(isIn(key, object))),
  );
}

function optionalPath(root: Cel, path: readonly PathSegment[]): Cel {
  return path.reduce<Cel>((base, step) => optionalIndex(base, typeof step === 'number' ? int(step) : str(step)), root);
}

/** Whether the API server keeps top-level fields the schema does not declare: then no number of them is too many. */
function keepsUnknownTopLevelFields(schema: JSONSchemaProps): boolean {
  return (
    schema['x-kubernetes-preserve-unknown-fields'] === true ||
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
  );
}

/** The top-level fields an object of this schema can have: those it declares, and apiVersion, kind, metadata. */
export function topLevelFieldCount(schema: JSONSchemaProps | undefined): number {
  const declared = isPlainObject(schema?.properties) ? Object.keys(schema.properties) : [];
  return new Set([...declared, 'apiVersion', 'kind', 'metadata', 'status']).size;
}
