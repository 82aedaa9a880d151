import type { FieldError } from '../contract/field-error.ts';
import { valueAtPath } from '../contract/field-path.ts';
import { checkPhaseMove } from '../contract/fsa/check-phase-move.ts';
import { objectRef, type KubeObject } from '../contract/kube-object.ts';
import { ratchet, toleratedWarning } from '../contract/ratchet.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { objectErrors, VersionUnknownError, viewObject, type ObjectView } from './object-errors.ts';
import type { AdmissionRequest } from './review.ts';
import { isVerdict, routeReview } from './route.ts';
import { allow, deny, errored, fieldErrorsMessage, withWarnings, type Verdict } from './verdict.ts';

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
  const view = viewObject(compiled, oldObject, request.kind.version);
  if (view.hub === undefined) return errored(`the stored object ${objectRef(oldObject)} could not be converted to the hub version`);
  const reasons = (compiled.contract.deletionRules ?? []).map((rule) => rule(view.hub!)).filter((r) => r !== undefined);
  return reasons.length > 0 ? deny('DELETION_PROTECTED', reasons.join('; ')) : allow();
}

function decideWrite(compiled: CompiledContract, request: AdmissionRequest): Verdict {
  const view = viewObject(compiled, request.object!, request.kind.version);
  let errors = objectErrors(compiled, view);
  let warnings: string[] = [];
  let forbidden: FieldError[] = [];
  let auditAnnotations: Record<string, string> = {};

  if (request.operation === 'UPDATE') {
    const oldView = viewObject(compiled, request.oldObject!, request.kind.version);
    const ratcheted = ratchet(errors, oldView.object, view.object, () => safeObjectErrors(compiled, oldView));
    errors = ratcheted.errors;
    warnings = ratcheted.tolerated.map(toleratedWarning);
    // A status update cannot change the spec (the API server drops spec changes on the status subresource).
    if (request.subResource !== 'status' && view.hub && oldView.hub) {
      for (const rule of compiled.updateRules) {
        const verdict = rule({ oldObject: oldView.hub, object: view.hub });
        forbidden = [...forbidden, ...verdict.forbidden];
        warnings = [...warnings, ...verdict.warnings];
        auditAnnotations = { ...auditAnnotations, ...verdict.auditAnnotations };
      }
    }
    if (request.subResource === 'status') warnings = [...warnings, ...phaseMoveWarnings(compiled, oldView.object, view.object)];
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
function phaseMoveWarnings(compiled: CompiledContract, oldObject: KubeObject, object: KubeObject): string[] {
  const machine = compiled.contract.transitions;
  if (!machine) return [];
  const move = checkPhaseMove(machine, valueAtPath(oldObject, machine.phasePath), valueAtPath(object, machine.phasePath));
  return move.expected ? [] : [move.message];
}

/** The old object's errors only decide what to tolerate: if they cannot be computed, tolerate nothing. */
function safeObjectErrors(compiled: CompiledContract, view: ObjectView): FieldError[] {
  try {
    return objectErrors(compiled, view);
  } catch {
    return [];
  }
}
