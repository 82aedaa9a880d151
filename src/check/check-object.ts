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
import { convertObject, toHub } from '../conversion/convert-object.ts';
import { ConversionError } from '../conversion/conversion-error.ts';
import { inKeyOrderOf } from '../api-server-engine/key-order.ts';
import { inGoKeyOrder } from '../contract/values/go-key-order.ts';
import { isPlainObject, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import { jsonEqual } from '../contract/values/json-equal.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { apiVersionOf, type Contract } from '../contract/contract-definition.ts';
import { deprecationWarning } from '../contract/deprecation-warning.ts';
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
  const { group, version } = splitApiVersion(String(object.apiVersion));
  const compiled = registry.lookup(group, String(object.kind));
  const served = compiled !== undefined && compiled.servedApiVersions.has(String(object.apiVersion));
  // The API server warns of a deprecated version before it does anything else with the request.
  const deprecated = served ? deprecationWarning(compiled.contract, version) : undefined;
  const warned = (result: CheckResult): CheckResult =>
    deprecated === undefined ? result : { ...result, warnings: recorded([deprecated], result.warnings) };
  if (operation === 'DELETE') {
    // The object deleted is the stored one: the manifest as the API server stored it (its defaults set, what the
    // storage version does not declare pruned) and reads it back, which is what the deletion rules see.
    const stored = served ? storedForm(registry, compiled, object) : object;
    return warned(summarize(decideValidation(registry, admissionRequest(operation, null, stored)), stored, [], []));
  }
  if (served) {
    const crd = engineCrdFor(compiled);
    const storedOld =
      oldObject === null ? null : asStoredIn(registry, crd, compiled, oldObject, String(object.apiVersion));
    return warned(
      checkThroughEngine(registry, compiled, crd, {
        ...input,
        operation,
        oldObject: storedOld,
        fieldValidation: input.fieldValidation ?? 'Strict',
      }),
    );
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
 * The old object of an update as kube-apiserver gives it to the webhooks and to its own validation: as its
 * admission stored it (the schema's defaults, and the contract's defaults set by crdgate's mutating webhook), read
 * back from storage in its own version, converted to the version of the request, and read so again there, as the
 * API server defaults what a conversion returns. A field either defaults is then no change, as it is none to the
 * API server. An old object the engine cannot read stays as given: judging it then names the problem.
 */
function asStoredIn(
  registry: ContractRegistry,
  crd: EngineCrd,
  compiled: CompiledContract,
  oldObject: KubeObject,
  apiVersion: string,
): KubeObject {
  const ownVersion = String(oldObject.apiVersion);
  if (!compiled.servedApiVersions.has(ownVersion)) return oldObject;
  const stored = asAdmitted(registry, crd, compiled, readBack(crd, oldObject));
  if (ownVersion === apiVersion) return stored;
  // As answeredObject converts: a CRD whose owner converts with None only relabels; one whose owner's webhook
  // converts cannot be converted here, and convertObject says so (CONVERTED_BY_OWNER).
  const convert =
    storageConversion(compiled.contract) ?? ((object, to) => convertObject(compiled.contract, object, to));
  return readBack(crd, convert(inGoKeyOrder(stored), apiVersion));
}

/** The object as the API server holds it once stored and reads it back in the version written. */
function storedForm(registry: ContractRegistry, compiled: CompiledContract, object: KubeObject): KubeObject {
  const crd = engineCrdFor(compiled);
  return answeredObject(crd, compiled, asAdmitted(registry, crd, compiled, readBack(crd, object)));
}

/**
 * An old object as its own admission stored it: with the defaults crdgate's mutating webhook set when it was
 * created, and the schema's within them. A manifest of the previous revision leaves them out, as the new one may;
 * the stored object has them, so a default is no change. An object that has them already is as it was.
 */
function asAdmitted(registry: ContractRegistry, crd: EngineCrd, compiled: CompiledContract, object: KubeObject) {
  const call = webhookCall(compiled, String(object.apiVersion));
  const mutation = decideMutation(registry, call.request('CREATE', object, null));
  if (!mutation.allowed || mutation.patch === undefined || mutation.patch.length === 0) return object;
  try {
    return readBack(crd, call.patched(object, mutation.patch));
  } catch {
    return object;
  }
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
    const back = convert(inGoKeyOrder(readBack(crd, convert(inGoKeyOrder(object), storageApiVersion))), written);
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
  const call = webhookCall(compiled, String(object.apiVersion));
  const mutation = decideMutation(registry, call.request(operation, received, oldObject));
  if (!mutation.allowed) return summarize(mutation, received, [], fieldWarnings);
  const patch = mutation.patch ?? [];
  let patched: KubeObject;
  try {
    patched = patch.length > 0 ? call.patched(received, patch) : received;
  } catch (error) {
    return summarize(deny('INTERNAL_ERROR', (error as Error).message), received, [], fieldWarnings);
  }
  // What a webhook's patch adds that the schema does not know is pruned silently, as the API server does.
  const judged = judge(crd, {
    operation,
    object: patched,
    oldObject: old,
    fieldValidation: patch.length > 0 ? 'Ignore' : 'Strict',
    ...namespaceOf(input),
  });
  // The schema's defaults set on reading the object, then the mutating webhook's.
  const defaults = [...addedFields(object, received), ...call.defaulted(patch, received)];
  const warnings = [...fieldWarnings, ...mutation.warnings, ...judged.warnings];
  if (!judged.allowed) {
    // The webhook sees the object as the API server prepared it (status dropped on a create, say), not as sent.
    const prepared = judged.object ? inKeyOrderOf(judged.object, patched) : patched;
    const webhook =
      judged.code === 422
        ? decideValidation(registry, call.request(operation, prepared, oldObject), contextOf(input))
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
  const validation = decideValidation(
    registry,
    call.request(operation, oldObject === null ? stored : preparedForUpdate(stored, oldObject), oldObject),
    contextOf(input),
  );
  // And the schema's defaults within what the webhook's patch added, set when the API server reads the patched object.
  const answered = answeredObject(crd, compiled, stored);
  return summarize(validation, answered, [...defaults, ...addedFields(patched, answered)], warnings);
}

/**
 * The new object of an update as the API server gives it to the validating webhook: rest.BeforeUpdate has carried
 * over from the stored object what a client cannot change (its uid when none is sent, its creation and deletion
 * timestamps and grace period, its generation, one more when anything but metadata and status changed). The engine
 * answers with the metadata as sent, which is what the client reads back.
 */
function preparedForUpdate(object: KubeObject, oldObject: KubeObject): KubeObject {
  const old = oldObject.metadata ?? {};
  const metadata: Record<string, unknown> = { ...object.metadata };
  if (!metadata['uid'] && old.uid !== undefined) metadata['uid'] = old.uid;
  for (const field of ['creationTimestamp', 'deletionTimestamp'] as const)
    if (old[field] !== undefined && old[field] !== null) metadata[field] = old[field];
  if (old.deletionGracePeriodSeconds !== undefined && metadata['deletionGracePeriodSeconds'] === undefined)
    metadata['deletionGracePeriodSeconds'] = old.deletionGracePeriodSeconds;
  if (typeof old.generation === 'number') {
    const content = (candidate: KubeObject) =>
      Object.fromEntries(Object.entries(candidate).filter(([key]) => key !== 'metadata' && key !== 'status'));
    metadata['generation'] = old.generation + (jsonEqual(content(object), content(oldObject)) ? 0 : 1);
  }
  return { ...object, metadata };
}

/**
 * How the API server calls crdgate's webhooks for a request in `apiVersion`. They are registered for the hub with
 * matchPolicy Equivalent: an object of another version reaches them converted to the hub (by crdgate's own
 * conversion, as the conversion webhook converts it), `requestKind` naming the version the client wrote, and a
 * defaulting patch applies to that hub form, which is converted back to the client's version.
 */
interface WebhookCall {
  request(operation: CheckOperation, object: KubeObject | null, oldObject: KubeObject | null): AdmissionRequest;
  /** The object of the request with the mutating webhook's patch applied, in the request's version. */
  patched(object: KubeObject, patch: readonly JsonPatchOperation[]): KubeObject;
  /** What the patch set, in the words of the request's version. */
  defaulted(patch: readonly JsonPatchOperation[], object: KubeObject): DefaultedField[];
}

function webhookCall(compiled: CompiledContract, apiVersion: string): WebhookCall {
  const { contract } = compiled;
  const { version } = splitApiVersion(apiVersion);
  if (version === contract.hub) {
    return {
      request: admissionRequest,
      patched: (object, patch) => applyJsonPatch(object, patch),
      defaulted: (patch, object) => defaultedFields(patch, applyJsonPatch(object, patch), object),
    };
  }
  const { group, kind } = contract.identity;
  const requestKind = { group, version, kind };
  const toHub = (object: KubeObject | null) => (object === null ? null : hubFormForTheWebhook(compiled, object));
  const patched = (object: KubeObject, patch: readonly JsonPatchOperation[]) =>
    inKeyOrderOf(convertObject(contract, inGoKeyOrder(applyJsonPatch(toHub(object)!, patch)), apiVersion), object);
  return {
    request: (operation, object, oldObject) => ({
      ...admissionRequest(operation, toHub(object), toHub(oldObject)),
      requestKind,
    }),
    patched,
    // The patch's paths are the hub's: what it set is read off the object the client gets back.
    defaulted: (patch, object) => (patch.length === 0 ? [] : changedFields(object, patched(object, patch))),
  };
}

/** Where `after` differs from `before`: each field added or changed with its value, each removed without. */
function changedFields(
  before: unknown,
  after: unknown,
  segments: PathSegment[] = [],
  found: DefaultedField[] = [],
): DefaultedField[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const [key, value] of Object.entries(after)) changedFields(before[key], value, [...segments, key], found);
    for (const key of Object.keys(before))
      if (!Object.hasOwn(after, key)) found.push({ field: renderFieldPath('', [...segments, key]) });
  } else if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    after.forEach((item, index) => changedFields(before[index], item, [...segments, index], found));
  } else if (!jsonEqual(before, after)) {
    found.push({ field: renderFieldPath('', segments), value: after });
  }
  return found;
}

/**
 * The object as crdgate's webhooks receive it from the API server: in the hub, through crdgate's conversion. One
 * that cannot be converted stays as it is; the webhooks then decide on it what they decide on such an object.
 */
function hubFormForTheWebhook(compiled: CompiledContract, object: KubeObject): KubeObject {
  try {
    return inKeyOrderOf(toHub(compiled.contract, inGoKeyOrder(object)), object);
  } catch {
    return object;
  }
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
    // The webhook's warnings as its response carries them (bounded), after the API server's own.
    warnings: recorded(earlierWarnings, sanitizeWarnings(verdict.warnings)),
    auditAnnotations: verdict.auditAnnotations,
    defaults,
    object,
  };
}

/** Warnings as the API server's recorder keeps them for the response: in order, each text once. */
function recorded(...lists: readonly string[][]): string[] {
  return [...new Set(lists.flat())];
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
