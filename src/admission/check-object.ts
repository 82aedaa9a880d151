import { randomUUID } from 'node:crypto';
import type { DecisionCode } from '../errors.ts';
import type { FieldError } from '../contract/field-error.ts';
import { splitApiVersion, type KubeObject } from '../contract/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { pointerSegments, renderFieldPath } from '../contract/schema/field-path.ts';
import { applyJsonPatch, type JsonPatchOperation } from './json-patch.ts';
import { decideMutation } from './mutate.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation } from './validate.ts';
import { sanitizeWarnings, type Verdict } from './verdict.ts';

export type CheckOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface CheckInput {
  operation: CheckOperation;
  /** The object written; for DELETE, the object being deleted. */
  object: KubeObject;
  /** The stored object an UPDATE replaces. */
  oldObject?: KubeObject | null;
}

/** A field the mutating webhook's defaults set, in Kubernetes' path notation: `spec.replicas`. */
export interface DefaultedField {
  field: string;
  /** Absent when the default removes the field. */
  value?: unknown;
}

/** What the API server would conclude: allowed or not, and why; the defaulted object it would store. */
export interface CheckResult {
  allowed: boolean;
  code: DecisionCode;
  /** The denial as the API server would word it; absent when allowed. */
  message?: string;
  /** One entry per bad field on a denial. */
  causes: FieldError[];
  warnings: string[];
  /** What the defaults set (empty for DELETE, and when the mutating webhook denied). */
  defaults: DefaultedField[];
  /** The object after the defaults (the object itself when there were none). */
  object: KubeObject;
}

/**
 * The decision `crdgate check` prints, in the API server's order: the mutating webhook's patch is applied, then the
 * validating webhook decides on the patched object. Pure: no server, no network.
 */
export function checkObject(registry: ContractRegistry, input: CheckInput): CheckResult {
  const { operation, object } = input;
  const oldObject = input.oldObject ?? null;
  if (operation === 'DELETE') return summarize(decideValidation(registry, admissionRequest(operation, null, object)), object, [], []);
  const mutation = decideMutation(registry, admissionRequest(operation, object, oldObject));
  if (!mutation.allowed) return summarize(mutation, object, [], []);
  const patch = mutation.patch ?? [];
  const defaulted = patch.length > 0 ? applyJsonPatch(object, patch) : object;
  const validation = decideValidation(registry, admissionRequest(operation, defaulted, oldObject));
  return summarize(validation, defaulted, defaultedFields(patch, defaulted, object), mutation.warnings);
}

function admissionRequest(operation: CheckOperation, object: KubeObject | null, oldObject: KubeObject | null): AdmissionRequest {
  const subject = (object ?? oldObject)!;
  const { group, version } = splitApiVersion(String(subject.apiVersion));
  return {
    uid: randomUUID(),
    kind: { group, version, kind: String(subject.kind) },
    operation,
    object,
    oldObject,
    ...(subject.metadata?.name ? { name: subject.metadata.name } : {}),
    ...(subject.metadata?.namespace ? { namespace: subject.metadata.namespace } : {}),
  };
}

function summarize(verdict: Verdict, object: KubeObject, defaults: DefaultedField[], earlierWarnings: string[]): CheckResult {
  return {
    allowed: verdict.allowed,
    code: verdict.code,
    ...(verdict.allowed ? {} : { message: verdict.message ?? verdict.code }),
    causes: verdict.causes ?? [],
    warnings: sanitizeWarnings([...earlierWarnings, ...verdict.warnings]),
    defaults,
    object,
  };
}

/** A removal's path only exists in the object before the patch, so each operation is read in the object it names. */
function defaultedFields(patch: readonly JsonPatchOperation[], after: KubeObject, before: KubeObject): DefaultedField[] {
  return patch.map((operation) => {
    const field = renderFieldPath('', pointerSegments(operation.op === 'remove' ? before : after, operation.path));
    return operation.op === 'remove' ? { field } : { field, value: operation.value };
  });
}
