import type { ClientFieldPaths } from '../contract/client-field-paths.ts';
import { fieldError, type FieldError } from '../contract/field-error.ts';
import { valueAtPath } from '../contract/field-path.ts';
import { checkPhaseMove, checkStateMove, readState } from '../contract/fsa/phase.ts';
import { objectRef, type KubeObject } from '../contract/kube-object.ts';
import { ratchet, toleratedWarning, type RatchetResult } from '../contract/ratchet.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { objectErrors, VersionUnknownError, viewObject, type ObjectErrors, type ObjectView } from './object-errors.ts';
import type { AdmissionRequest } from './review.ts';
import { isVerdict, routeReview } from './route.ts';
import { allow, deny, fieldErrorsMessage, withWarnings, type Verdict } from './verdict.ts';

/**
 * The validating webhook's decision, a pure function of the review. Order: schema, invariants,
 * and on UPDATE the contract's update rules (the transition machine); all errors collected, never the first only.
 */
export function decideValidation(registry: ContractRegistry, request: AdmissionRequest): Verdict {
  const compiled = routeReview(registry, request);
  if (isVerdict(compiled)) return compiled;
  try {
    switch (request.operation) {
      case 'DELETE':
        return decideDelete(compiled, request, request.oldObject!);
      case 'CREATE':
      case 'UPDATE':
        return decideWrite(compiled, request);
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
  const reasons = decidable.map((rule) => rule(subject)).filter((r) => r !== undefined).map((reason) => paths?.text(reason) ?? reason);
  if (reasons.length > 0) return deny('DELETION_PROTECTED', reasons.join('; '));
  if (decidable.length < rules.length) {
    return deny('DELETION_PROTECTED', `the deletion rules cannot be checked on ${objectRef(oldObject)}: ${view.hubProblem ?? 'no hub form'}`);
  }
  return allow();
}

function decideWrite(compiled: CompiledContract, request: AdmissionRequest): Verdict {
  const view = viewObject(compiled, request.object!, request.kind.version);
  const found = objectErrors(compiled, view);
  // Every error and warning is found on the hub form (the schema's too, when the object came as the hub) and said
  // in the client's words: these say which of them need saying again.
  const paths = clientFieldPaths(compiled, request, view);
  const schemaWords = view.version === compiled.contract.hub ? paths : undefined;
  // Without a hub form, the one invariant error is the conversion's own, already in the object's words.
  const ruleWords = view.hub ? paths : undefined;
  let errors = [...inClientWords(schemaWords, found.schema), ...inClientWords(ruleWords, found.invariants)];
  let warnings: string[] = [];
  let forbidden: FieldError[] = [];
  let auditAnnotations: Record<string, string> = {};

  if (request.operation === 'UPDATE') {
    const oldView = viewObject(compiled, request.oldObject!, request.kind.version);
    const { schema, invariants } = ratchetBoth(compiled, found, view, oldView);
    errors = [...inClientWords(schemaWords, schema.errors), ...inClientWords(ruleWords, invariants.errors)];
    warnings = [...inClientWords(schemaWords, schema.tolerated), ...inClientWords(ruleWords, invariants.tolerated)].map(toleratedWarning);
    // A status update cannot change the spec (the API server drops spec changes on the status subresource).
    if (request.subResource !== 'status' && compiled.updateRules.length > 0) {
      if (view.hub && oldView.hub) {
        for (const rule of compiled.updateRules) {
          const verdict = rule({ oldObject: oldView.hub, object: view.hub });
          forbidden = [...forbidden, ...inClientWords(paths, verdict.forbidden)];
          warnings = [...warnings, ...verdict.warnings.map((warning) => paths?.text(warning) ?? warning)];
          auditAnnotations = { ...auditAnnotations, ...verdict.auditAnnotations };
        }
      } else if (view.hub) {
        // Fail closed: a change the update rules cannot judge is not a change they allow. (A new object without a
        // hub form is already refused by its own error.)
        const problem = oldView.hubProblem ?? 'no hub form';
        forbidden = [fieldError('', 'FieldValueForbidden', `the change cannot be checked against the update rules: the stored object: ${problem}`)];
      }
    }
    if (request.subResource === 'status') {
      warnings = [...warnings, ...phaseMoveWarnings(compiled, oldView, view).map((warning) => paths?.text(warning) ?? warning)];
    }
  }

  const { kind, group } = compiled.contract.identity;
  const name = view.object.metadata?.name || request.name || objectRef(view.object);
  const subject = { group, kind, name };
  if (errors.length > 0) {
    const all = [...errors, ...forbidden];
    return deny('OBJECT_INVALID', fieldErrorsMessage(`${kind}.${group}`, name, 'is invalid', all), all, subject);
  }
  if (forbidden.length > 0) {
    return deny('CHANGE_FORBIDDEN', fieldErrorsMessage(`${kind}.${group}`, name, 'cannot be changed', forbidden), forbidden, subject);
  }
  return withWarnings(allow(), warnings, auditAnnotations);
}

/**
 * The operator owns status.phase, so an unexpected move is not refused (the operator saw what it saw), but a
 * warning says that either the operator or the machine is wrong.
 */
function phaseMoveWarnings(compiled: CompiledContract, oldView: ObjectView, view: ObjectView): string[] {
  const machine = compiled.contract.transitions;
  if (!machine) return [];
  // The machine's phase path is a hub path.
  if (!oldView.hub || !view.hub) return [`the phase move cannot be checked: ${oldView.hubProblem ?? view.hubProblem ?? 'no hub form'}`];
  // A state reader of one's own reads the whole object (conditions, generations); without one, the phases are compared.
  const move = machine.readState
    ? checkStateMove(machine, readState(machine, oldView.hub), readState(machine, view.hub), 'the state read from the status')
    : checkPhaseMove(machine, valueAtPath(oldView.hub, machine.phasePath), valueAtPath(view.hub, machine.phasePath));
  return move.expected ? [] : [move.message];
}

/**
 * How the client spells the hub's field paths, or undefined when it writes the hub (nothing to translate, nothing
 * paid). With matchPolicy Equivalent the object comes converted to the hub, and only `requestKind` still names the
 * version the client wrote; without it, the object's own version is the client's. (An object converted from one
 * spoke to another for a webhook registered for a spoke keeps its schema errors in that spoke's words.)
 */
function clientFieldPaths(compiled: CompiledContract, request: AdmissionRequest, view: ObjectView): ClientFieldPaths | undefined {
  const { contract } = compiled;
  const requested = request.requestKind;
  const sameKind = requested !== undefined && requested.group === contract.identity.group && requested.kind === contract.identity.kind;
  const version = sameKind ? requested.version : view.version;
  return version === contract.hub ? undefined : compiled.clientFieldPaths.get(version);
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
 * sent, only when both are in the same version (a path means nothing in another version); invariant errors
 * between the two hub forms, only when both exist. Without a comparable pair, nothing is tolerated.
 */
function ratchetBoth(
  compiled: CompiledContract,
  found: ObjectErrors,
  view: ObjectView,
  oldView: ObjectView,
): { schema: RatchetResult; invariants: RatchetResult } {
  let oldErrors: ObjectErrors | undefined;
  // The old object's errors only decide what to tolerate: if they cannot be computed, tolerate nothing.
  const before = (): ObjectErrors => (oldErrors ??= safeObjectErrors(compiled, oldView));
  const schema =
    oldView.version === view.version
      ? ratchet(found.schema, oldView.object, view.object, () => before().schema)
      : { errors: found.schema, tolerated: [] };
  const invariants =
    oldView.hub && view.hub
      ? ratchet(found.invariants, oldView.hub, view.hub, () => before().invariants)
      : { errors: found.invariants, tolerated: [] };
  return { schema, invariants };
}

function safeObjectErrors(compiled: CompiledContract, view: ObjectView): ObjectErrors {
  try {
    return objectErrors(compiled, view);
  } catch {
    return { schema: [], invariants: [] };
  }
}
