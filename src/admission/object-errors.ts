import type { FieldError } from '../contract/field-error.ts';
import { splitApiVersion, type KubeObject } from '../contract/kube-object.ts';
import type { CompiledContract } from '../contract/registry.ts';
import { toHub } from '../conversion/convert-object.ts';

/** An object as sent, with the version it is written in and its hub form (undefined when it cannot convert). */
export interface ObjectView {
  object: KubeObject;
  version: string;
  hub: KubeObject | undefined;
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
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : `${contract.identity.group}/${fallbackVersion}`;
  const { group, version } = splitApiVersion(apiVersion);
  if (group !== contract.identity.group || !compiled.validators.has(version)) {
    throw new VersionUnknownError(
      `${apiVersion} is not a version of ${contract.identity.kind} (served: ${[...compiled.servedApiVersions].join(', ')})`,
    );
  }
  return { object, version, hub: hubOrUndefined(compiled, object, version) };
}

function hubOrUndefined(compiled: CompiledContract, object: KubeObject, version: string): KubeObject | undefined {
  if (version === compiled.contract.hub) return object;
  try {
    return toHub(compiled.contract, object);
  } catch {
    // An object that cannot convert is reported through its schema errors; with none, the caller fails closed.
    return undefined;
  }
}

/**
 * Every schema and invariant error of an object, all collected: the schema of the version it is written in, then
 * the invariants on its hub form. Invariants run even when the schema failed (users want the whole list at once),
 * so an invariant that trips over schema-invalid input is skipped rather than reported.
 */
export function objectErrors(compiled: CompiledContract, view: ObjectView): FieldError[] {
  const schemaErrors = compiled.validators.get(view.version)!(view.object);
  if (view.hub === undefined) {
    if (schemaErrors.length > 0) return schemaErrors;
    throw new Error(`${view.version} object could not be converted to the hub version ${compiled.contract.hub}`);
  }
  const errors = [...schemaErrors];
  for (const invariant of compiled.contract.invariants ?? []) {
    try {
      errors.push(...invariant(view.hub));
    } catch (error) {
      if (schemaErrors.length === 0) throw error;
    }
  }
  return dedupe(errors);
}

/** The schema and an invariant may both catch the same fault (a duplicate cache name): report it once. */
function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.type}\u0000${error.field}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
