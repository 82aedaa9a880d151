import { randomUUID } from 'node:crypto';
import type { DecisionCode } from '../errors.ts';
import { formatFieldError, type FieldError } from '../contract/values/field-error.ts';
import { engineCrdFor } from '../api-server-engine/contract-crd.ts';
import {
  judge,
  readAsStored,
  type EngineCrd,
  type FieldValidation,
  type Judgement,
} from '../api-server-engine/engine.ts';
import { convertObject } from '../conversion/convert-object.ts';
import { ConversionError } from '../conversion/conversion-error.ts';
import { apiVersionOf, type Contract } from '../contract/contract-definition.ts';
import { inKeyOrderOf } from '../api-server-engine/key-order.ts';
import { isPlainObject, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { pointerSegments, renderFieldPath, type PathSegment } from '../contract/values/field-path.ts';
import { applyJsonPatch, type JsonPatchOperation } from '../admission/json-patch.ts';
import { decideMutation } from '../admission/mutate.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import { decideValidation } from '../admission/validate.ts';
import type { UpdateContext } from '../contract/fsa/evaluate/evaluate-transition.ts';
import { allow, deny, sanitizeWarnings, type Verdict } from '../admission/verdict.ts';

export type CheckOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface CheckInput {
  operation: CheckOperation;
  /** The object written; for DELETE, the object being deleted. */
  object: KubeObject;
  /** The stored object an UPDATE replaces. */
  oldObject?: KubeObject | null;
  /** What unknown and duplicate fields make of the object (kubectl's --validate); Strict, kubectl's default, if unset. */
  fieldValidation?: FieldValidation;
  /**
   * The state of an old object that records none (no phase, or a state reader that reads nothing): `crdgate check
   * --state`, or the machine's steadyState, for a previous revision's manifest. A stored object's status decides.
   */
  assumedState?: string;
  /** The namespace of the request when the object names none (kubectl's `-n`); the API server's `default` if unset. */
  namespace?: string;
}

/** A field the mutating webhook's defaults set, in Kubernetes' path notation: `spec.replicas`. */
export interface DefaultedField {
  field: string;
  /** Absent when the default removes the field. */
  value?: unknown;
}

/**
 * What the API server would conclude: allowed or not, and why; the defaulted object it would store, as it answers
 * the write (read back from storage, which defaults again what the write dropped: a status the create cleared).
 */
export interface CheckResult {
  allowed: boolean;
  code: DecisionCode;
  /** The denial as the API server would word it; absent when allowed. */
  message?: string;
  /** One entry per bad field on a denial, as the API server's answer names them. */
  causes: FieldError[];
  /**
   * On a denial by the API server's own validation: what crdgate's validating webhook would refuse on the fields
   * it does not name (an invariant, say), which the API server never gets to ask: the client meets these once the
   * API server's causes are fixed. Not part of the answer.
   */
  next?: FieldError[];
  warnings: string[];
  /**
   * What the validating webhook's answer records in the API server's audit log (the override's record, say), by
   * key: the API server prefixes each with the webhook's name.
   */
  auditAnnotations: Record<string, string>;
  /** What the defaults set (empty for DELETE, and when the mutating webhook denied). */
  defaults: DefaultedField[];
  /** The object after the defaults (the object itself when there were none). */
  object: KubeObject;
}

/**
 * The decision `crdgate check` prints, in the API server's order. For a kind and version a contract serves, the
 * object goes through kube-apiserver's own custom-resource pipeline (the API server engine) on the contract's CRD:
 * decoded strictly, pruned and defaulted by the schema; then the mutating webhook's patch is applied; a patched
 * object is pruned and defaulted again; the schema, its CEL rules and ratcheting decide; and only an object the API
 * server would take reaches the validating webhook, as the server would store it. No server, no network.
 */
export function checkObject(registry: ContractRegistry, input: CheckInput): CheckResult {
  const { operation, object } = input;
  const oldObject = input.oldObject ?? null;
  if (operation === 'DELETE')
    return summarize(decideValidation(registry, admissionRequest(operation, null, object)), object, [], []);
  const compiled = registry.lookup(splitApiVersion(String(object.apiVersion)).group, String(object.kind));
  if (compiled && compiled.servedApiVersions.has(String(object.apiVersion))) {
    const crd = engineCrdFor(compiled);
    const storedOld = oldObject === null ? null : asStoredIn(crd, compiled, oldObject, String(object.apiVersion));
    return checkThroughEngine(registry, compiled, crd, {
      ...input,
      operation,
      oldObject: storedOld,
      fieldValidation: input.fieldValidation ?? 'Strict',
    });
  }
  // A kind or version no contract serves: the webhooks' own answer (KIND_UNKNOWN, VERSION_UNKNOWN).
  const mutation = decideMutation(registry, admissionRequest(operation, object, oldObject));
  if (!mutation.allowed) return summarize(mutation, object, [], []);
  const patch = mutation.patch ?? [];
  const defaulted = patch.length > 0 ? applyJsonPatch(object, patch) : object;
  const validation = decideValidation(registry, admissionRequest(operation, defaulted, oldObject), contextOf(input));
  return summarize(validation, defaulted, defaultedFields(patch, defaulted, object), mutation.warnings);
}

/**
 * The old object of an update as kube-apiserver gives it to the webhooks and to its own validation: read back from
 * storage (pruned, the schema's defaults applied) in its own version, converted to the version of the request, and
 * read so again there, as the API server defaults what a conversion returns. A field the schema defaults is then
 * no change, as it is none to the API server. An old object the engine cannot read stays as given: judging it
 * then names the problem.
 */
function asStoredIn(crd: EngineCrd, compiled: CompiledContract, oldObject: KubeObject, apiVersion: string): KubeObject {
  const ownVersion = String(oldObject.apiVersion);
  const stored = compiled.servedApiVersions.has(ownVersion) ? readBack(crd, oldObject) : oldObject;
  if (ownVersion === apiVersion || !compiled.servedApiVersions.has(ownVersion)) return stored;
  return readBack(crd, convertObject(compiled.contract, stored, apiVersion));
}

/**
 * The object as the API server answers a write, and reads it back in the version written: stored in the storage
 * version (converted there, then pruned and defaulted by that version's schema as it is read from storage), and
 * converted back, pruned by the written version's schema. A CRD someone else owns converts with its owner's strategy: None only relabels (apiextensions'
 * nopConverter, as kube-apiserver v1.36 answers a Crossplane XRD written in v2, stored in v1, with v1's default);
 * an owner's webhook cannot run here, so that object is read back in its own version.
 */
function answeredObject(crd: EngineCrd, compiled: CompiledContract, object: KubeObject): KubeObject {
  const { contract } = compiled;
  const written = String(object.apiVersion);
  const storage = contract.versions.find((version) => version.storage);
  const storageApiVersion = storage?.served ? apiVersionOf(contract, storage.name) : undefined;
  const convert = storageConversion(contract);
  if (storageApiVersion === undefined || storageApiVersion === written || convert === undefined)
    return readBack(crd, object);
  try {
    // Back in the version written, the answer is pruned by that version's schema (apiextensions' schema-coercing
    // converter), never defaulted again: what only the storage version declares, its defaults included, is not in
    // it, nor a default of the written version on a field the storage version pruned.
    const back = convert(readBack(crd, convert(object, storageApiVersion)), written);
    return inKeyOrderOf(onlyWhatWasThere(readBack(crd, back), back) as KubeObject, object);
  } catch (error) {
    if (error instanceof ConversionError) return readBack(crd, object);
    throw error;
  }
}

/**
 * `read` (an object as its schema read it: pruned, then defaulted) without what the defaults added: the fields
 * `before` did not have. What remains is `before` as the schema prunes it.
 */
function onlyWhatWasThere(read: unknown, before: unknown): unknown {
  if (Array.isArray(read) && Array.isArray(before))
    return read.map((item, index) => onlyWhatWasThere(item, before[index]));
  if (!isPlainObject(read) || !isPlainObject(before)) return read;
  return Object.fromEntries(
    Object.entries(read)
      .filter(([key]) => Object.hasOwn(before, key))
      .map(([key, value]) => [key, onlyWhatWasThere(value, before[key])]),
  );
}

/** How the API server converts the contract's objects between versions, when crdgate can do it as well. */
function storageConversion(contract: Contract): ((object: KubeObject, apiVersion: string) => KubeObject) | undefined {
  if (contract.crdOwner !== 'external') return (object, apiVersion) => convertObject(contract, object, apiVersion);
  const conversion = (contract.ownerCrd?.['spec'] as { conversion?: { strategy?: unknown } } | undefined)?.conversion;
  if (contract.ownerCrd === undefined || (conversion?.strategy !== undefined && conversion.strategy !== 'None'))
    return undefined;
  return (object, apiVersion) => ({ ...object, apiVersion });
}

function readBack(crd: EngineCrd, object: KubeObject): KubeObject {
  const read = readAsStored(crd, object);
  return read.allowed && read.object ? inKeyOrderOf(read.object, object) : object;
}

/** The request's namespace: the object's own, which the API server requires to match, else the one asked for. */
function namespaceOf(input: CheckInput): { namespace?: string } {
  const written = input.object.metadata?.namespace;
  return input.namespace === undefined || (typeof written === 'string' && written !== '')
    ? {}
    : { namespace: input.namespace };
}

function contextOf(input: CheckInput): UpdateContext {
  return input.assumedState === undefined ? {} : { assumedState: input.assumedState };
}

/**
 * The decision for a custom resource whose CRD alone is known (`crdgate check --crd`, or a CRD in the checked tree),
 * no contract declaring its kind: kube-apiserver's own pipeline on that CRD, and nothing else, since no webhook of
 * crdgate's is in front of it. Decoded with strict field validation, pruned, defaulted by the schema, validated
 * with the schema, its CEL rules and, on an update, ratcheting and transition rules against the old object; judged
 * in its own apiVersion's schema. `defaults` lists the fields the schema's defaults added. A DELETE is allowed: the
 * API server validates nothing on one.
 */
export function checkCrdObject(crd: EngineCrd, input: CheckInput): CheckResult {
  const { operation, object } = input;
  if (operation === 'DELETE') return summarize(allow(), object, [], []);
  const oldObject = input.oldObject ? readBack(crd, input.oldObject) : undefined;
  const judged = judge(crd, {
    operation,
    object,
    fieldValidation: input.fieldValidation ?? 'Strict',
    ...(oldObject ? { oldObject } : {}),
    ...namespaceOf(input),
  });
  if (!judged.allowed) return summarize(engineDenial(judged), object, [], judged.warnings);
  const stored = readBack(crd, inKeyOrderOf(judged.object!, object));
  return summarize(allow(), stored, addedFields(object, stored), judged.warnings);
}

/** The fields `after` has and `before` lacks (the schema's defaults), as paths with their values; list items by index. */
function addedFields(
  before: unknown,
  after: unknown,
  segments: PathSegment[] = [],
  found: DefaultedField[] = [],
): DefaultedField[] {
  if (Array.isArray(after) && Array.isArray(before)) {
    after.forEach((item, index) => addedFields(before[index], item, [...segments, index], found));
  } else if (
    after !== null &&
    typeof after === 'object' &&
    !Array.isArray(after) &&
    before !== null &&
    typeof before === 'object' &&
    !Array.isArray(before)
  ) {
    const old = before as Record<string, unknown>;
    for (const [key, value] of Object.entries(after)) {
      if (Object.hasOwn(old, key)) addedFields(old[key], value, [...segments, key], found);
      else found.push({ field: renderFieldPath('', [...segments, key]), value });
    }
  }
  return found;
}

/** An UPDATE's old object is the stored one already (asStoredIn). */
function checkThroughEngine(
  registry: ContractRegistry,
  compiled: CompiledContract,
  crd: EngineCrd,
  input: CheckInput & {
    operation: 'CREATE' | 'UPDATE';
    oldObject: KubeObject | null;
    fieldValidation: FieldValidation;
  },
): CheckResult {
  const { operation, object, oldObject, fieldValidation } = input;
  const refusal =
    crd.refusal.length > 0
      ? [
          `kube-apiserver would refuse the CustomResourceDefinition of ${compiled.contract.identity.kind}: ${crd.refusal.map(formatFieldError).join(', ')}`,
        ]
      : [];
  const old = oldObject ?? undefined;
  const decoded = judge(crd, {
    operation,
    object,
    oldObject: old,
    decodeOnly: true,
    fieldValidation,
    ...namespaceOf(input),
  });
  if (!decoded.allowed) return summarize(engineDenial(decoded), object, [], refusal);
  // With Warn, the unknown and duplicate fields the decoding pruned are warnings, as the API server sends them.
  const fieldWarnings = [...refusal, ...decoded.warnings];
  // The engine gives keys back sorted; the user's order is kept (it is the order of the report and of --defaulted).
  const received = inKeyOrderOf(decoded.object!, object);
  const mutation = decideMutation(registry, admissionRequest(operation, received, oldObject));
  if (!mutation.allowed) return summarize(mutation, received, [], fieldWarnings);
  const patch = mutation.patch ?? [];
  const patched = patch.length > 0 ? applyJsonPatch(received, patch) : received;
  // What a webhook's patch adds that the schema does not know is pruned silently, as the API server does.
  const judged = judge(crd, {
    operation,
    object: patched,
    oldObject: old,
    fieldValidation: patch.length > 0 ? 'Ignore' : 'Strict',
    ...namespaceOf(input),
  });
  // The schema's defaults set on reading the object, then the mutating webhook's.
  const defaults = [...addedFields(object, received), ...defaultedFields(patch, patched, received)];
  const warnings = [...fieldWarnings, ...mutation.warnings, ...judged.warnings];
  if (!judged.allowed) {
    // The webhook sees the object as the API server prepared it (status dropped on a create, say), not as sent.
    const prepared = judged.object ? inKeyOrderOf(judged.object, patched) : patched;
    const webhook =
      judged.code === 422
        ? decideValidation(registry, admissionRequest(operation, prepared, oldObject), contextOf(input))
        : undefined;
    const next = webhookFindingsBeyond(judged.causes, webhook?.causes ?? []);
    return {
      ...summarize(
        deny('OBJECT_INVALID', judged.message ?? 'the API server refused the object', judged.causes),
        patched,
        defaults,
        warnings,
      ),
      ...(next.length > 0 ? { next } : {}),
    };
  }
  const stored = inKeyOrderOf(judged.object!, patched);
  const validation = decideValidation(registry, admissionRequest(operation, stored, oldObject), contextOf(input));
  // And the schema's defaults within what the webhook's patch added, set when the API server reads the patched object.
  const answered = answeredObject(crd, compiled, stored);
  return summarize(validation, answered, [...defaults, ...addedFields(patched, answered)], warnings);
}

/**
 * The API server refuses an invalid object (422) before it would call the validating webhook, so its answer names
 * only its own causes. What the webhook would refuse on the fields the API server did not name (its invariants) is
 * what the client meets next: crdgate reports it beside the answer, not in it, so that the answer stays the API
 * server's.
 */
function webhookFindingsBeyond(server: FieldError[], webhook: FieldError[]): FieldError[] {
  const named = new Set(server.map((cause) => sameField(cause.field)));
  return webhook.filter((cause) => !named.has(sameField(cause.field)));
}

/**
 * A field as both sides can be matched on: the API server's schema errors join a map key with a dot
 * (`matchLabels.app.kubernetes.io/name`) where crdgate writes it in brackets (`matchLabels[app.kubernetes.io/name]`).
 */
function sameField(field: string): string {
  return field.replace(/\[([^\]]*)\]/g, (whole, key: string) => (/^\d+$/.test(key) ? whole : `.${key}`));
}

/** The API server's own refusal, in its words: 400 for a body it cannot take, 422 for an invalid object. */
function engineDenial(judgement: Judgement): Verdict {
  return deny('OBJECT_INVALID', judgement.message ?? 'the API server refused the object', judgement.causes);
}

function admissionRequest(
  operation: CheckOperation,
  object: KubeObject | null,
  oldObject: KubeObject | null,
): AdmissionRequest {
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

function summarize(
  verdict: Verdict,
  object: KubeObject,
  defaults: DefaultedField[],
  earlierWarnings: string[],
): CheckResult {
  return {
    allowed: verdict.allowed,
    code: verdict.code,
    ...(verdict.allowed ? {} : { message: verdict.message ?? verdict.code }),
    causes: verdict.causes ?? [],
    warnings: sanitizeWarnings([...earlierWarnings, ...verdict.warnings]),
    auditAnnotations: verdict.auditAnnotations,
    defaults,
    object,
  };
}

/** A removal's path only exists in the object before the patch, so each operation is read in the object it names. */
function defaultedFields(
  patch: readonly JsonPatchOperation[],
  after: KubeObject,
  before: KubeObject,
): DefaultedField[] {
  return patch.map((operation) => {
    const field = renderFieldPath('', pointerSegments(operation.op === 'remove' ? before : after, operation.path));
    return operation.op === 'remove' ? { field } : { field, value: operation.value };
  });
}
