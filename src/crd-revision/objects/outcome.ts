import type { FieldErrorType } from '../../contract/values/field-error.ts';
import type { KubeObject } from '../../contract/values/kube-object.ts';

/**
 * What the API server does with one stored object once a CRD revision is applied. One shape for both sides of
 * the proof: `crdgate check` predicts it offline, and the differential test observes it on a real kube-apiserver
 * (GET in every served version, PUT back unchanged, PUT with a label added, the operator's status write, a spec
 * write, delete and create again), so that the two compare object for object.
 */
export interface StoredObjectOutcome {
  object: StoredObjectRef;
  /** A GET in each version the new revision serves, by version name: the object as answered, or the refusal. */
  reads: Record<string, ReadOutcome>;
  /** A PUT, in the new storage version, of the object as that GET answered it, unchanged. */
  unchangedWrite: WriteOutcome;
  /** The same PUT with one label added: a write that changes the object but not a field the schema judges. */
  labelWrite: WriteOutcome;
  /**
   * The operator's own status write: the GET's answer with one status field changed (withOneFieldChanged), PUT to
   * the status subresource (to the object where the version has none). Absent when the object has no status value
   * such a write could change.
   */
  statusWrite?: WriteOutcome;
  /** A user's spec write: the same, with one spec field unrelated to the revision changed, PUT to the object. */
  specWrite?: WriteOutcome;
  /** Deleted, then created again from what the GET answered (a GitOps re-sync from nothing, a restore). */
  recreate: WriteOutcome;
}

export interface StoredObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export type ReadOutcome = { object: KubeObject } | { refused: Refusal };

/**
 * `stored`: the object the API server stored, without what it alone sets (uid, resourceVersion,
 * creationTimestamp, generation, managedFields), so that a prediction can equal it.
 */
export type WriteOutcome = { allowed: true; stored: KubeObject } | { allowed: false; refused: Refusal };

export interface Refusal {
  /** The HTTP status: 404 for a version not served, 400 for a body the API server cannot take, 422 for an invalid object. */
  code: number;
  /** One per bad field, as the API server names it (`spec.replicas`) and the type of its error. */
  causes: ReadonlyArray<{ field: string; type: FieldErrorType }>;
}
