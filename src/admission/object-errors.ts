import { readKeysOf, readView } from '../contract/contract-reads.ts';
import { fieldError, type FieldError } from '../contract/values/field-error.ts';
import { splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import type { CompiledContract } from '../contract/registry.ts';
import { toHub } from '../conversion/convert-object.ts';

/** An object as sent, with the version it is written in and its hub form (undefined when it cannot convert). */
export interface ObjectView {
  object: KubeObject;
  version: string;
  hub: KubeObject | undefined;
  /** Why the object has no hub form. */
  hubProblem?: string;
}

export class VersionUnknownError extends Error {
  override name = 'VersionUnknownError';
}

/**
 * Resolves the version an object is written in. The object's own apiVersion wins over the review's `kind`: with
 * matchPolicy Equivalent they agree, and when a differently registered webhook sends another version, the object
 * is the truth.
 */
export function viewObject(compiled: CompiledContract, object: KubeObject, fallbackVersion: string): ObjectView {
  const { contract } = compiled;
  const apiVersion =
    typeof object.apiVersion === 'string' ? object.apiVersion : `${contract.identity.group}/${fallbackVersion}`;
  const { group, version } = splitApiVersion(apiVersion);
  if (group !== contract.identity.group || !compiled.validators.has(version)) {
    throw new VersionUnknownError(
      `${apiVersion} is not a version of ${contract.identity.kind} (served: ${[...compiled.servedApiVersions].join(', ')})`,
    );
  }
  if (version === contract.hub) return { object, version, hub: object };
  try {
    return { object, version, hub: toHub(contract, object) };
  } catch (error) {
    return { object, version, hub: undefined, hubProblem: (error as Error)?.message ?? String(error) };
  }
}

/**
 * An object's errors by where they come from, because each kind is found in a different form of the object:
 * schema errors in the version it is written in (their paths are that version's), the hub's schema and the
 * invariants on its hub form (their paths are the hub's).
 */
export interface ObjectErrors {
  schema: FieldError[];
  /**
   * The hub's schema on the hub form of an object written in another version: what crdgate's webhook, registered
   * for the hub, finds on the object the API server converts for it. Empty for an object written in the hub.
   */
  hubSchema: FieldError[];
  invariants: FieldError[];
}

/**
 * Every schema and invariant error of an object, all collected: the schema of the version it is written in, the
 * hub's schema on its hub form when that is another, then the invariants on the hub form. So an object is decided
 * alike in every version: converted to the hub, the hub's schema and every rule. Not so for a CRD someone else owns:
 * its hub form is what the owner's conversion makes, which the API server never validates (with conversion None, the
 * client's object relabelled), so the version written decides the schema there. Invariants run even when the schema
 * failed (users want the whole list at once). What cannot be evaluated is an error, never a pass: invariants on an
 * object without a hub form, an invariant that throws. `versionSchema: 'skip'` leaves out the schema of the version
 * written, where the API server judged it already (see decideWrite), and compiles no validator for it.
 */
export function objectErrors(
  compiled: CompiledContract,
  view: ObjectView,
  { versionSchema = 'run' }: { versionSchema?: 'run' | 'skip' } = {},
): ObjectErrors {
  const schema = versionSchema === 'skip' ? [] : compiled.validators.get(view.version)!(view.object);
  const rules = compiled.contract.invariants ?? [];
  // Without invariants nothing reads the hub form: the schema of the object's own version decides alone (an operator's
  // kind in a version only its owner converts, checked offline).
  if (view.hub === undefined && rules.length === 0) return { schema, hubSchema: [], invariants: [] };
  if (view.hub === undefined) {
    return {
      schema,
      hubSchema: [],
      invariants: [
        fieldError('', 'FieldValueInvalid', `the rules cannot be checked: ${view.hubProblem ?? 'no hub form'}`),
      ],
    };
  }
  const hubSchema =
    view.hub === view.object || compiled.contract.crdOwner === 'external'
      ? []
      : compiled.validators.get(compiled.contract.hub)!(view.hub);
  const invariants: FieldError[] = [];
  const shown = readView(readKeysOf(compiled.contract), view.hub);
  for (const invariant of rules) {
    try {
      invariants.push(...invariant(shown));
    } catch (error) {
      // On a schema-valid object a throwing invariant is a contract bug: the handler answers it as crdgate's own
      // failure (500). On an invalid one it tripped over the input; either way it cannot pass.
      if (schema.length === 0 && hubSchema.length === 0) throw error;
      invariants.push(
        fieldError(
          '',
          'FieldValueInvalid',
          `a rule could not be evaluated: ${(error as Error)?.message ?? String(error)}`,
        ),
      );
    }
  }
  return { schema, hubSchema, invariants: withoutRepeats(invariants, view.hub === view.object ? schema : hubSchema) };
}

/** The schema and an invariant may both catch the same fault (a duplicate cache name): report it once. */
function withoutRepeats(errors: FieldError[], reported: FieldError[]): FieldError[] {
  const key = (error: FieldError) => `${error.type}\u0000${error.field}`;
  const seen = new Set(reported.map(key));
  return errors.filter((error) => {
    if (seen.has(key(error))) return false;
    seen.add(key(error));
    return true;
  });
}
