import type { CheckResult } from '../../../../src/admission/check-object.ts';
import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';
import { ruleSites, variantsOf, withValueAt, type RuleSite } from './rule-cases.ts';
import { getAt, type Json } from './schema-cases.ts';

const maxSteps = 60;

/**
 * A variant of `object` that `check` allows, made a place at a time: of the places carrying rules above a refused
 * field, the deepest first, one is set to whichever of its variants leaves the fewest refusals, until none is left
 * (a shallower place, such as the whole spec, drops a field only when no value of the field itself will do). The
 * full object of a schema with CEL rules seldom meets them all as generated (fields that exclude each other, a
 * window whose end must follow its start), and a base the API server refuses makes no updates. Undefined when no
 * variant brings the refusals down.
 */
export function storableVariant(schema: JSONSchemaProps, object: Record<string, unknown>, check: (object: Record<string, unknown>) => CheckResult): Record<string, unknown> | undefined {
  const sites = ruleSites(schema).filter((site) => site.steps.length > 0);
  let current = object;
  let result = check(current);
  for (let step = 0; step < maxSteps && !result.allowed; step++) {
    const better = firstBetter(schema, placesAbove(sites, result), current, refusalsOf(result), check);
    if (better === undefined) return undefined;
    ({ variant: current, result } = better);
  }
  return result.allowed ? current : undefined;
}

/** The places carrying rules above each refused field, deepest first: `spec.mirrors[0].url` lies under `spec.mirrors` and `spec`. */
function placesAbove(sites: readonly RuleSite[], result: CheckResult): RuleSite[] {
  const fields = result.causes.map((cause) => cause.field.replace(/\[[^\]]*\]/g, '').split('.'));
  const above = sites.filter((site) => fields.some((steps) => site.steps.every((name, index) => steps[index] === name)));
  return above.sort((a, b) => b.steps.length - a.steps.length);
}

/** At the first place where some variant leaves fewer refusals than `refusals`, the variant that leaves the fewest. */
function firstBetter(schema: JSONSchemaProps, places: readonly RuleSite[], object: Record<string, unknown>, refusals: number, check: (object: Record<string, unknown>) => CheckResult) {
  for (const site of places) {
    let best: { variant: Record<string, unknown>; result: CheckResult } | undefined;
    for (const value of variantsOf(site.schema, getAt(object as Json, site.steps))) {
      const variant = withValueAt(object, schema, site.steps, value);
      const result = check(variant);
      if (refusalsOf(result) < (best ? refusalsOf(best.result) : refusals)) best = { variant, result };
      if (result.allowed) break;
    }
    if (best) return best;
  }
  return undefined;
}

/** How far an object is from being allowed: its refused fields, and a refusal that names none counts as one. */
function refusalsOf(result: CheckResult): number {
  return result.allowed ? 0 : Math.max(1, result.causes.length);
}
