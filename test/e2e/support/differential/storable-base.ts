import type { CheckResult } from '../../../../src/check/check-object.ts';
import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';
import { variantsOf } from './rule-cases.ts';
import { getAt, type Json } from './schema-cases.ts';

type Steps = Array<string | number>;

const maxSteps = 60;

/**
 * A variant of `object` that `check` allows, made a place at a time: of the places above a refused field, the
 * refused field itself first, then its parents, one is set to whichever of its variants leaves the fewest refusals,
 * until none is left (a parent, up to the whole spec, drops a field only when no value of the field itself will
 * do). The full object of a schema with CEL rules seldom meets them all as generated (fields that exclude each
 * other, a window whose end must follow its start, a URL), and a base the API server refuses makes no updates.
 * Undefined when no variant brings the refusals down.
 */
export function storableVariant(
  schema: JSONSchemaProps,
  object: Record<string, unknown>,
  check: (object: Record<string, unknown>) => CheckResult,
): Record<string, unknown> | undefined {
  let current = object;
  let result = check(current);
  for (let step = 0; step < maxSteps && !result.allowed; step++) {
    const better = firstBetter(schema, placesAbove(result), current, check);
    if (better === undefined) return undefined;
    ({ variant: current, result } = better);
  }
  return result.allowed ? current : undefined;
}

/** Each refused field and its parents, deepest first: `spec.mirrors[0].url`, `spec.mirrors[0]`, `spec.mirrors`, `spec`. */
function placesAbove(result: CheckResult): Steps[] {
  const places = new Map<string, Steps>();
  for (const { field } of result.causes) {
    const steps: Steps = [...field.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)].map(
      ([, name, key]) => name ?? (/^\d+$/.test(key!) ? Number(key) : key!),
    );
    for (let length = steps.length; length > 0; length--)
      places.set(JSON.stringify(steps.slice(0, length)), steps.slice(0, length));
  }
  return [...places.values()].sort((a, b) => b.length - a.length);
}

/** At the first place where some variant leaves fewer refusals than now, the variant that leaves the fewest. */
function firstBetter(
  schema: JSONSchemaProps,
  places: readonly Steps[],
  object: Record<string, unknown>,
  check: (object: Record<string, unknown>) => CheckResult,
) {
  const refusals = refusalsOf(check(object));
  for (const steps of places) {
    const place = schemaOfPlace(schema, steps);
    const parent = getAt(object as Json, steps.slice(0, -1));
    if (place === undefined || parent === null || typeof parent !== 'object') continue;
    // Of those with the fewest refusals, the one that keeps the most (an empty list or map would do, but prove less).
    const scored = variantsOf(place, getAt(object as Json, steps)).map((value) => {
      const variant = replacedAt(object, steps, value);
      return { variant, result: check(variant), size: JSON.stringify(value).length };
    });
    const best = scored.sort((a, b) => refusalsOf(a.result) - refusalsOf(b.result) || b.size - a.size)[0];
    if (best && refusalsOf(best.result) < refusals) return best;
  }
  return undefined;
}

/** The schema of the value at `steps`: a number steps into a list's items, a name into a property or a map's values. */
function schemaOfPlace(schema: JSONSchemaProps, steps: Steps): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined = schema;
  for (const step of steps) {
    if (node === undefined) return undefined;
    node =
      typeof step === 'number'
        ? node.items
        : (node.properties?.[step] ??
          (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined));
  }
  return node;
}

/** A copy of `object` with `value` in place of what `steps` leads to, whose parent is there. */
function replacedAt(object: Record<string, unknown>, steps: Steps, value: Json): Record<string, unknown> {
  const copy = structuredClone(object);
  const parent = getAt(copy as Json, steps.slice(0, -1)) as Record<string | number, Json>;
  parent[steps.at(-1)!] = value;
  return copy;
}

/** How far an object is from being allowed: its refused fields, and a refusal that names none counts as one. */
function refusalsOf(result: CheckResult): number {
  return result.allowed ? 0 : Math.max(1, result.causes.length);
}
