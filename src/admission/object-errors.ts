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
 * schema errors in the version it is written in (their paths are that version's), invariant errors in its hub form.
 */
export interface ObjectErrors {
  schema: FieldError[];
  invariants: FieldError[];
}

/**
 * Every schema and invariant error of an object, all collected: the schema of the version it is written in, then
 * the invariants on its hub form. Invariants run even when the schema failed (users want the whole list at once).
 * What cannot be evaluated is an error, never a pass: invariants on an object without a hub form, an invariant that
 * throws.
 */
export function objectErrors(compiled: CompiledContract, view: ObjectView): ObjectErrors {
  const schema = compiled.validators.get(view.version)!(view.object);
  const rules = compiled.contract.invariants ?? [];
  // Without invariants nothing reads the hub form: the schema of the object's own version decides alone (an operator's
  // kind in a version only its owner converts, checked offline).
  if (view.hub === undefined && rules.length === 0) return { schema, invariants: [] };
  if (view.hub === undefined) {
    return {
      schema,
      invariants: [
        fieldError('', 'FieldValueInvalid', `the rules cannot be checked: ${view.hubProblem ?? 'no hub form'}`),
      ],
    };
  }
  const invariants: FieldError[] = [];
  const shown = readView(readKeysOf(compiled.contract), view.hub);
  for (const invariant of rules) {
    try {
      invariants.push(...invariant(shown));
    } catch (error) {
      // On a schema-valid object a throwing invariant is a contract bug: the handler answers it as crdgate's own
      // failure (500). On an invalid one it tripped over the input; either way it cannot pass.
      if (schema.length === 0) throw error;
      invariants.push(
        fieldError(
          '',
          'FieldValueInvalid',
          `a rule could not be evaluated: ${(error as Error)?.message ?? String(error)}`,
        ),
      );
    }
  }
  return { schema, invariants: withoutRepeats(invariants, schema) };
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
