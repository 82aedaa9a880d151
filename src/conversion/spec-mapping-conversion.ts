import type { HubToSpokePaths, SpokeConversion } from '../contract/contract-definition.ts';
import { jsonEqual } from '../contract/values/json-equal.ts';
import { isPlainObject } from '../contract/values/kube-object.ts';
import { putStash, takeStash, type LostData } from './stash.ts';

/**
 * How one spoke version's spec maps to the hub's, for a kind whose versions differ in their spec only. The types
 * are the specs as their schemas describe them; conversion runs before validation, so a value may still differ.
 */
export interface SpecMapping<HubSpec = Record<string, unknown>, SpokeSpec = Record<string, unknown>> {
  /**
   * The hub spec as the spoke shows it, and everything the spoke cannot show ({} when nothing was lost).
   * Total: it must accept any JSON object, since conversion runs before validation on writes.
   */
  down(hubSpec: HubSpec): { spec: SpokeSpec; lost: LostData };
  /**
   * The hub spec for a spoke spec, with the lost data put back when there is some. It reads only the fields the
   * spoke defines (the API server prunes any other) and throws, naming the field, on a value it cannot translate.
   */
  up(spokeSpec: SpokeSpec, lost: LostData | undefined): HubSpec;
}

export interface SpecMappingConversionOptions<HubSpec = Record<string, unknown>, SpokeSpec = Record<string, unknown>> {
  mapping: SpecMapping<HubSpec, SpokeSpec>;
  /**
   * The spec fields `mapping` moves, as paths (`{ 'spec.sizeGi': 'spec.size' }`, null for what only the stash
   * keeps), so a client of the spoke reads denials in its own field names. The functions cannot say it themselves.
   */
  hubToSpokePaths?: HubToSpokePaths;
}

/**
 * A spoke conversion from a spec mapping. Everything but the spec (metadata, status, any other field) is carried as
 * it is, because it has the same shape in every version; objects without a spec, or with a spec that is not an
 * object, convert with the spec untouched. The apiVersions and the stash's annotation come from the contract, so
 * they cannot drift from it (defineContract requires the contract's conversionAnnotation).
 */
export function specMappingConversion<HubSpec = Record<string, unknown>, SpokeSpec = Record<string, unknown>>(
  options: SpecMappingConversionOptions<HubSpec, SpokeSpec>,
): SpokeConversion {
  // Inside, a spec is any JSON object: the mapping's types are its author's view of valid objects.
  const mapping = options.mapping as unknown as SpecMapping;
  return {
    usesStash: true,
    ...(options.hubToSpokePaths ? { hubToSpokePaths: options.hubToSpokePaths } : {}),
    toHub(object, { hubApiVersion, annotation }) {
      const { object: withoutStash, lost } = takeStash(object, stashAnnotation(annotation));
      const hub = { ...withoutStash, apiVersion: hubApiVersion };
      return isPlainObject(hub.spec) ? { ...hub, spec: restoreLost(mapping, hub.spec, lost) } : hub;
    },
    fromHub(hub, { spokeApiVersion, annotation }) {
      const spoke = { ...hub, apiVersion: spokeApiVersion };
      if (!isPlainObject(hub.spec)) return putStash(spoke, stashAnnotation(annotation), {});
      const { spec, lost } = mapping.down(hub.spec);
      return putStash({ ...spoke, spec }, stashAnnotation(annotation), lost);
    },
  };
}

function stashAnnotation(annotation: string | undefined): string {
  // defineContract refuses a contract that uses this conversion without a conversionAnnotation.
  if (annotation === undefined)
    throw new Error('specMappingConversion used by a contract without conversionAnnotation');
  return annotation;
}

/**
 * The hub spec with the lost data put back, unless it contradicts the spoke. A spoke object can carry a stash that
 * no longer fits it: someone read it, changed a field, and wrote it back with the old annotation, or edited the
 * annotation itself. Each mapping already lets the spoke's own fields beat the stash field by field; this catches
 * whatever is left: a stash is used only when the result converts back to exactly what the spoke shows.
 */
function restoreLost(
  mapping: SpecMapping,
  spec: Record<string, unknown>,
  lost: LostData | undefined,
): Record<string, unknown> {
  const plain = mapping.up(spec, undefined);
  if (lost === undefined) return plain;
  const restored = mapping.up(spec, lost);
  return jsonEqual(mapping.down(restored).spec, mapping.down(plain).spec) ? restored : plain;
}
