import type { ClientFieldPaths } from '../contract/client-field-paths.ts';
import { clientValueDisplay } from './client-values.ts';
import { fieldError, formatFieldError, type FieldError } from '../contract/values/field-error.ts';
import { describeValue } from '../contract/values/describe-value.ts';
import { hiddenFieldChanges, type HiddenFieldChange } from './hidden-field-changes.ts';
import { valueAtPath } from '../contract/values/field-path.ts';
import type { UpdateContext } from '../contract/fsa/evaluate/evaluate-transition.ts';
import { checkPhaseMove, checkStateMove, readState, readsPhase } from '../contract/fsa/phase.ts';
import { objectRef, type KubeObject } from '../contract/values/kube-object.ts';
import { ratchet, toleratedWarning, type RatchetResult } from '../contract/ratchet.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { objectErrors, VersionUnknownError, viewObject, type ObjectErrors, type ObjectView } from './object-errors.ts';
import type { AdmissionRequest } from './review.ts';
import { changesNothingJudged, unchangedAsSentAndInTheHub } from './judged-parts.ts';
import { isVerdict, routeReview } from './route.ts';
import { allow, deny, fieldErrorsMessage, type Verdict } from './verdict.ts';

/** How a decision is asked for beyond the review; the webhook never sets any of it. */
export interface JudgingOptions {
  /**
   * Judge an update in full even when it changes nothing any rule reads, which the webhook answers with a plain
   * allow (and its configuration does not send): the ratchet then repeats the errors the object already had, as
   * warnings. For proving that such an update has nothing else to be told.
   */
  judgeUnchanged?: boolean;
}

/**
 * The validating webhook's decision, a pure function of the review. Order: schema, invariants,
 * and on UPDATE the contract's update rules (the FSA); all errors collected, never the first only.
 * `context` is for deciding offline (`crdgate check`, contractTester): the webhook is never given one.
 */
export function decideValidation(
  registry: ContractRegistry,
  request: AdmissionRequest,
  context: UpdateContext = {},
  options: JudgingOptions = {},
): Verdict {
  const compiled = routeReview(registry, request);
  if (isVerdict(compiled)) return compiled;
  try {
    switch (request.operation) {
      case 'DELETE':
        return decideDelete(compiled, request, request.oldObject!);
      case 'CREATE':
      case 'UPDATE':
        return decideWrite(compiled, request, context, options);
      case 'CONNECT':
        return allow();
    }
  } catch (error) {
    if (error instanceof VersionUnknownError) return deny('VERSION_UNKNOWN', error.message);
    throw error;
  }
}

function decideDelete(compiled: CompiledContract, request: AdmissionRequest, oldObject: KubeObject): Verdict {
  const rules = compiled.contract.deletionRules ?? [];
  if (rules.length === 0) return allow();
  const view = viewObject(compiled, oldObject, request.kind.version);
  // Without a hub form, the rules that read only metadata still decide, so a broken object can be deleted
  // unless one of them says no; a rule that needs the object can only deny.
  const decidable = view.hub === undefined ? rules.filter((rule) => rule.readsMetadataOnly) : rules;
  const subject = view.hub ?? { apiVersion: oldObject.apiVersion, kind: oldObject.kind, metadata: oldObject.metadata };
  const paths = clientFieldPaths(compiled, request, view);
  const reasons = decidable
    .map((rule) => rule(subject))
    .filter((r) => r !== undefined)
    .map((reason) => paths?.text(reason) ?? reason);
  if (reasons.length > 0) return deny('DELETION_PROTECTED', reasons.join('; '));
  if (decidable.length < rules.length) {
    return deny(
      'DELETION_PROTECTED',
      `the deletion rules cannot be checked on ${objectRef(oldObject)}: ${view.hubProblem ?? 'no hub form'}`,
    );
  }
  return allow();
}

/**
 * What one source found about a write (the schema, the invariants, an update rule, the phase move), with the
 * words it is said in: `words` turns the hub's field paths into the client's, undefined when the source already
 * speaks the client's version. Each source knows its own; the fold below says everything in the client's words.
 */
interface Findings {
  words: ClientFieldPaths | undefined;
  /** Errors that make the object invalid (422). */
  invalid?: FieldError[];
  /** Errors the old object already had at an unchanged value: warnings, not denials. */
  tolerated?: FieldError[];
  /** Refusals of the change itself (403). */
  forbidden?: FieldError[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** Every finding of every source, in the client's words, in the order the sources came. */
interface Collected {
  invalid: FieldError[];
  forbidden: FieldError[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

function decideWrite(
  compiled: CompiledContract,
  request: AdmissionRequest,
  context: UpdateContext,
  options: JudgingOptions,
): Verdict {
  const view = viewObject(compiled, request.object!, request.kind.version);
  const oldView =
    request.operation === 'UPDATE' ? viewObject(compiled, request.oldObject!, request.kind.version) : undefined;
  // An update that changes nothing any rule reads has nothing to judge: whatever the object was, it still is, and
  // was told so when that was written. The webhook configurations skip such updates by the same parts, in the hub
  // (matchPolicy Equivalent); without hub forms nothing can be proven, and the rules below fail closed.
  if (
    !options.judgeUnchanged &&
    oldView?.hub &&
    view.hub &&
    unchangedAsSentAndInTheHub(oldView, view, (a, b) =>
      changesNothingJudged(compiled.contract, request.subResource, a, b),
    )
  )
    return allow();
  const versionSchema =
    convertedByItsOwner(compiled, request, view) || validatedByTheApiServer(compiled, request, view) ? 'skip' : 'run';
  const found = objectErrors(compiled, view, { versionSchema });
  // Every error and warning is found on the hub form (the schema's too, when the object came as the hub) and said
  // in the client's words.
  const paths = clientFieldPaths(compiled, request, view);
  const sources = [
    ...objectErrorFindings(compiled, found, view, oldView, paths, versionSchema),
    ...(oldView === undefined ? [] : changeFindings(compiled, request, view, oldView, paths, context)),
    ...(oldView === undefined || request.subResource
      ? []
      : hiddenChangeFindings(compiled, clientVersion(compiled, request, view), view, oldView, paths)),
  ];
  return writeVerdict(
    compiled,
    request,
    view,
    sources.reduce(collect, { invalid: [], forbidden: [], warnings: [], auditAnnotations: {} }),
  );
}

/**
 * An object of a CRD someone else owns that the API server converted to the hub for the webhook (matchPolicy
 * Equivalent): it validated the object in the version the client wrote, and the hub form is what the owner's
 * conversion made of it, which the API server never validates. Schema errors there are not the client's (with
 * conversion None, the API server sends the client's object relabelled as the hub), so crdgate's rules alone judge it.
 */
function convertedByItsOwner(compiled: CompiledContract, request: AdmissionRequest, view: ObjectView): boolean {
  const written = versionWritten(compiled, request);
  return compiled.contract.crdOwner === 'external' && written !== undefined && written !== view.version;
}

/**
 * An object written in a version whose schema the API server holds as the contract does (known by following the
 * live CRD: enforcedSchemas): the API server validated it with that schema before it called the webhook, which
 * would only say it again, at the cost of a validator compiled for it (megabytes of code for a large CRD).
 */
function validatedByTheApiServer(compiled: CompiledContract, request: AdmissionRequest, view: ObjectView): boolean {
  return compiled.enforcedSchemas.has(view.version) && versionWritten(compiled, request) === view.version;
}

/** The version the client wrote in, when the review names it (requestKind, for this contract's kind). */
function versionWritten(compiled: CompiledContract, request: AdmissionRequest): string | undefined {
  const { identity } = compiled.contract;
  const requested = request.requestKind;
  return requested !== undefined && requested.group === identity.group && requested.kind === identity.kind
    ? requested.version
    : undefined;
}

/**
 * The object's schema and invariant errors; on UPDATE ratcheted against the old object's, the tolerated ones
 * becoming warnings.
 */
function objectErrorFindings(
  compiled: CompiledContract,
  found: ObjectErrors,
  view: ObjectView,
  oldView: ObjectView | undefined,
  paths: ClientFieldPaths | undefined,
  versionSchema: 'run' | 'skip',
): Findings[] {
  const { schema, hubSchema, invariants } =
    oldView === undefined ? unratcheted(found) : ratchetBoth(compiled, found, view, oldView, versionSchema);
  // The hub's schema says again what the version's own said of the same field (a bound both have): said once.
  const said = new Set([...schema.errors, ...schema.tolerated].map((error) => `${error.type}\u0000${error.field}`));
  const unsaid = (errors: FieldError[]) =>
    errors.filter((error) => !said.has(`${error.type}\u0000${paths?.field(error.field) ?? error.field}`));
  return [
    // Schema errors are found in the version the object came in: only the hub's need saying again.
    {
      words: view.version === compiled.contract.hub ? paths : undefined,
      invalid: schema.errors,
      tolerated: schema.tolerated,
    },
    { words: paths, invalid: unsaid(hubSchema.errors), tolerated: unsaid(hubSchema.tolerated) },
    // Without a hub form, the one invariant error is the conversion's own, already in the object's words.
    { words: view.hub ? paths : undefined, invalid: invariants.errors, tolerated: invariants.tolerated },
  ];
}

interface RatchetedErrors {
  schema: RatchetResult;
  hubSchema: RatchetResult;
  invariants: RatchetResult;
}

function unratcheted(found: ObjectErrors): RatchetedErrors {
  return {
    schema: { errors: found.schema, tolerated: [] },
    hubSchema: { errors: found.hubSchema, tolerated: [] },
    invariants: { errors: found.invariants, tolerated: [] },
  };
}

/** What the contract's update rules say about the change, and on the status subresource, the phase move. */
function changeFindings(
  compiled: CompiledContract,
  request: AdmissionRequest,
  view: ObjectView,
  oldView: ObjectView,
  paths: ClientFieldPaths | undefined,
  context: UpdateContext,
): Findings[] {
  // A status update cannot change the spec (the API server drops spec changes on the status subresource), and the
  // operator owns the phase that it moves.
  if (request.subResource === 'status') return [{ words: paths, warnings: phaseMoveWarnings(compiled, oldView, view) }];
  if (compiled.updateRules.length === 0) return [];
  if (view.hub && oldView.hub) {
    const input = { oldObject: oldView.hub, object: view.hub };
    const version = clientVersion(compiled, request, view);
    const showChange = clientValueDisplay(compiled.contract, version, paths, oldView.hub, view.hub);
    const judging = showChange === undefined ? context : { ...context, showChange };
    return compiled.updateRules.map((rule) => {
      // A rule is a contract's code: one that returns no lists throws here, and the request fails closed.
      const { forbidden, warnings, auditAnnotations } = rule(input, judging);
      return { words: paths, forbidden: [...forbidden], warnings: [...warnings], auditAnnotations };
    });
  }
  // A new object without a hub form is already refused by its own error.
  if (!view.hub) return [];
  // Fail closed: a change the update rules cannot judge is not a change they allow.
  const problem = oldView.hubProblem ?? 'no hub form';
  return [
    {
      words: undefined,
      forbidden: [
        fieldError(
          '',
          'FieldValueForbidden',
          `the change cannot be checked against the update rules: the stored object: ${problem}`,
        ),
      ],
    },
  ];
}

/**
 * A write in an older version that would change what the stored object holds and that version cannot show: refused,
 * naming the versions that show it and how to write it; or, where the contract chose so, warned about.
 */
function hiddenChangeFindings(
  compiled: CompiledContract,
  version: string,
  view: ObjectView,
  oldView: ObjectView,
  paths: ClientFieldPaths | undefined,
): Findings[] {
  const { contract } = compiled;
  if (!oldView.hub || !view.hub) return [];
  const changes = hiddenFieldChanges(contract, version, oldView.hub, view.hub);
  if (changes.length === 0) return [];
  const name = view.object.metadata?.name ?? oldView.object.metadata?.name ?? 'NAME';
  const namespace = view.object.metadata?.namespace ?? oldView.object.metadata?.namespace;
  const warn = contract.hiddenFieldChanges === 'warn';
  const errors = changes.map((change) =>
    fieldError(
      change.field,
      'FieldValueForbidden',
      warn
        ? hiddenChangeWarning(version, change)
        : hiddenChangeRefusal(contract, version, change, `${name}${namespace ? ` -n ${namespace}` : ''}`),
    ),
  );
  return warn ? [{ words: paths, warnings: errors.map(formatFieldError) }] : [{ words: paths, forbidden: errors }];
}

/** Why the write is refused, and the two ways to write it: in a version that shows the field, or with the stash. */
function hiddenChangeRefusal(
  contract: CompiledContract['contract'],
  version: string,
  change: HiddenFieldChange,
  object: string,
): string {
  const { plural, group } = contract.identity;
  const newest = change.shownIn.at(-1)!;
  const keep =
    contract.conversionAnnotation === undefined
      ? ''
      : `, or send the annotation ${contract.conversionAnnotation} back as ${version} reads it`;
  return (
    `the stored object holds ${shown(change.from)} here, which ${version} cannot show, and this write would ` +
    `change it to ${shown(change.to)} unseen: write it in ${change.shownIn.join(' or ')} ` +
    `(kubectl edit ${plural}.${newest}.${group} ${object})${keep}`
  );
}

/** The same, short enough for a warning (the API server shows 256 characters of one). */
function hiddenChangeWarning(version: string, change: HiddenFieldChange): string {
  return (
    `a write in ${version}, which cannot show it, changed ${shown(change.from, 24)} to ${shown(change.to, 24)}; ` +
    `write it in ${change.shownIn.join(' or ')}`
  );
}

const shown = (value: unknown, maxLength?: number) =>
  value === undefined ? '(none)' : describeValue(value, maxLength);

function collect(collected: Collected, findings: Findings): Collected {
  const { words } = findings;
  const text = (sentence: string) => words?.text(sentence) ?? sentence;
  return {
    invalid: [...collected.invalid, ...inClientWords(words, findings.invalid ?? [])],
    forbidden: [...collected.forbidden, ...inClientWords(words, findings.forbidden ?? [])],
    warnings: [
      ...collected.warnings,
      ...inClientWords(words, findings.tolerated ?? []).map(toleratedWarning),
      ...(findings.warnings ?? []).map(text),
    ],
    auditAnnotations: { ...collected.auditAnnotations, ...findings.auditAnnotations },
  };
}

/** An invalid object is refused as invalid, naming the refused changes too; else a refused change; else allowed. */
function writeVerdict(
  compiled: CompiledContract,
  request: AdmissionRequest,
  view: ObjectView,
  collected: Collected,
): Verdict {
  const { invalid, forbidden, warnings, auditAnnotations } = collected;
  const { kind, group } = compiled.contract.identity;
  const name = view.object.metadata?.name || request.name || objectRef(view.object);
  const subject = { group, kind, name };
  if (invalid.length > 0) {
    const causes = [...invalid, ...forbidden];
    return deny('OBJECT_INVALID', fieldErrorsMessage(`${kind}.${group}`, name, 'is invalid', causes), causes, subject);
  }
  if (forbidden.length > 0) {
    return deny(
      'CHANGE_FORBIDDEN',
      fieldErrorsMessage(`${kind}.${group}`, name, 'cannot be changed', forbidden),
      forbidden,
      subject,
    );
  }
  return allow(warnings, auditAnnotations);
}

/**
 * The operator owns status.phase, so an unexpected move is not refused (the operator saw what it saw), but a
 * warning says that either the operator or the machine is wrong.
 */
function phaseMoveWarnings(compiled: CompiledContract, oldView: ObjectView, view: ObjectView): string[] {
  const machine = compiled.contract.transitions;
  if (!machine) return [];
  // The machine's phase path is a hub path.
  if (!oldView.hub || !view.hub)
    return [`the phase move cannot be checked: ${oldView.hubProblem ?? view.hubProblem ?? 'no hub form'}`];
  // A state reader of one's own reads the whole object (conditions, generations); without one, the phases are compared.
  const move = readsPhase(machine)
    ? checkPhaseMove(machine, valueAtPath(oldView.hub, machine.phasePath), valueAtPath(view.hub, machine.phasePath))
    : checkStateMove(
        machine,
        readState(machine, oldView.hub),
        readState(machine, view.hub),
        'the state read from the status',
      );
  return move.expected ? [] : [move.message];
}

/**
 * How the client spells the hub's field paths, or undefined when it writes the hub (nothing to translate, nothing
 * paid). With matchPolicy Equivalent the object comes converted to the hub, and only `requestKind` still names the
 * version the client wrote; without it, the object's own version is the client's. (An object converted from one
 * spoke to another for a webhook registered for a spoke keeps its schema errors in that spoke's words.)
 */
function clientFieldPaths(
  compiled: CompiledContract,
  request: AdmissionRequest,
  view: ObjectView,
): ClientFieldPaths | undefined {
  const version = clientVersion(compiled, request, view);
  return version === compiled.contract.hub ? undefined : compiled.clientFieldPaths.get(version);
}

/** The version the client wrote: `requestKind`'s when it names the contract's kind, else the object's own. */
function clientVersion(compiled: CompiledContract, request: AdmissionRequest, view: ObjectView): string {
  const { contract } = compiled;
  const requested = request.requestKind;
  const sameKind =
    requested !== undefined && requested.group === contract.identity.group && requested.kind === contract.identity.kind;
  return sameKind ? requested.version : view.version;
}

function inClientWords(paths: ClientFieldPaths | undefined, errors: FieldError[]): FieldError[] {
  if (paths === undefined) return errors;
  return errors.map((error) => {
    const field = paths.field(error.field);
    const message = paths.text(error.message);
    if (field === error.field && message === error.message) return error;
    // `path` holds the hub's exact steps, for ratcheting; past that, the field is the client's.
    const { path: _hubSteps, ...rest } = error;
    return { ...rest, field, message };
  });
}

/**
 * Ratchets each kind of error in the form of the objects it was found in: schema errors between the two objects as
 * sent, only when both are in the same version (a path means nothing in another version); the hub's schema and
 * invariant errors between the two hub forms, only when both exist. Without a comparable pair, nothing is tolerated.
 */
function ratchetBoth(
  compiled: CompiledContract,
  found: ObjectErrors,
  view: ObjectView,
  oldView: ObjectView,
  versionSchema: 'run' | 'skip',
): RatchetedErrors {
  let oldErrors: ObjectErrors | undefined;
  // The old object's errors only decide what to tolerate: if they cannot be computed, tolerate nothing.
  const before = (): ObjectErrors => (oldErrors ??= safeObjectErrors(compiled, oldView, versionSchema));
  const schema =
    oldView.version === view.version
      ? ratchet(found.schema, oldView.object, view.object, () => before().schema)
      : { errors: found.schema, tolerated: [] };
  const inHub = (errors: FieldError[], oldErrors: () => FieldError[]): RatchetResult =>
    oldView.hub && view.hub ? ratchet(errors, oldView.hub, view.hub, oldErrors) : { errors, tolerated: [] };
  // The old object's hub schema errors, whichever version it came in (the hub's own schema errors, when the hub).
  const hubSchemaBefore = () => (oldView.hub === oldView.object ? before().schema : before().hubSchema);
  return {
    schema,
    hubSchema: inHub(found.hubSchema, hubSchemaBefore),
    invariants: inHub(found.invariants, () => before().invariants),
  };
}

function safeObjectErrors(compiled: CompiledContract, view: ObjectView, versionSchema: 'run' | 'skip'): ObjectErrors {
  try {
    return objectErrors(compiled, view, { versionSchema });
  } catch {
    return { schema: [], hubSchema: [], invariants: [] };
  }
}
