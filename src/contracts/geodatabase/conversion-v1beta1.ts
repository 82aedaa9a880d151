import {
  isPlainObject,
  overlay,
  presentFields,
  specMappingConversion,
  splitFields,
  type LostData,
  type SpecMapping,
  type SpokeConversion,
} from '../../index.ts';

/**
 * v1beta1 differs from v1 in two ways: `replicas` is v1's `readReplicas`, and caches have no version or replicas.
 *
 * The stash (annotation geo.example.com/conversion-data), with only the fields that have something in them:
 * - `spec`: v1 spec fields v1beta1 has no place for, at their v1 paths (none today; a field added to v1 later is
 *   kept here until v1beta1's conversion learns it);
 * - `caches`: per cache, its name and the fields v1beta1 caches lack: `[{"name":"tiles","version":"7.2","replicas":1}]`.
 *   They go back to the cache of that name, so reordering caches in v1beta1 keeps them; a cache removed in v1beta1
 *   leaves its entry unused. When names repeat (invalid, but conversion runs before validation), every cache of that
 *   name gets an entry, and the n-th entry goes to the n-th cache of the name.
 */
export const v1beta1Conversion: SpokeConversion = specMappingConversion({
  mapping: {
    down: specToV1beta1,
    up: specFromV1beta1,
  } satisfies SpecMapping,
  hubToSpokePaths: {
    'spec.readReplicas': 'spec.replicas',
    // Stashed: a v1beta1 client never wrote them, so a denial names them as v1's.
    'spec.caches[*].version': null,
    'spec.caches[*].replicas': null,
  },
});

function specToV1beta1(hubSpec: Record<string, unknown>): { spec: Record<string, unknown>; lost: LostData } {
  const { postgres, readReplicas, storage, caches, ...unmapped } = hubSpec;
  const lostSpec: Record<string, unknown> = { ...unmapped };
  const lost: LostData = {};

  const shownPostgres = splitFields(postgres, ['version', 'postgis']);
  if (shownPostgres.lost) lostSpec.postgres = shownPostgres.lost;
  const shownStorage = splitFields(storage, ['size', 'storageClassName']);
  if (shownStorage.lost) lostSpec.storage = shownStorage.lost;
  const shownCaches = Array.isArray(caches) ? cachesToV1beta1(caches) : { caches, lost: [] };
  if (shownCaches.lost.length > 0) lost.caches = shownCaches.lost;
  if (Object.keys(lostSpec).length > 0) lost.spec = lostSpec;

  const spec = presentFields({
    postgres: shownPostgres.shown,
    replicas: readReplicas,
    storage: shownStorage.shown,
    caches: shownCaches.caches,
  });
  return { spec, lost };
}

function specFromV1beta1(spokeSpec: Record<string, unknown>, lost: LostData | undefined): Record<string, unknown> {
  const { postgres, replicas, storage, caches } = spokeSpec;
  const shown = presentFields({
    postgres: splitFields(postgres, ['version', 'postgis']).shown,
    readReplicas: replicas,
    storage: splitFields(storage, ['size', 'storageClassName']).shown,
    caches: Array.isArray(caches) ? cachesFromV1beta1(caches, lost?.caches) : caches,
  });
  return overlay(lost?.spec, shown) as Record<string, unknown>;
}

const v1beta1CacheFields = ['name', 'memory'];

function cachesToV1beta1(caches: unknown[]): { caches: unknown[]; lost: Record<string, unknown>[] } {
  const split = caches.map((cache) => ({ cache, ...splitFields(cache, v1beta1CacheFields) }));
  if (!split.some(({ lost }) => lost)) return { caches, lost: [] };
  const repeated = repeatedNames(caches);
  const lost = split.flatMap(({ cache, lost }) =>
    isPlainObject(cache) && (lost || repeated.has(nameKey(cache)))
      ? [{ ...presentFields({ name: cache.name }), ...lost }]
      : [],
  );
  return { caches: split.map(({ shown }) => shown), lost };
}

function cachesFromV1beta1(caches: unknown[], lost: unknown): unknown[] {
  const entriesByName = new Map<string, Record<string, unknown>[]>();
  for (const entry of Array.isArray(lost) ? lost : []) {
    if (!isPlainObject(entry)) continue;
    const key = nameKey(entry);
    entriesByName.set(key, [...(entriesByName.get(key) ?? []), entry]);
  }
  return caches.map((cache) => {
    const { shown } = splitFields(cache, v1beta1CacheFields);
    if (!isPlainObject(shown)) return shown;
    const entry = entriesByName.get(nameKey(shown))?.shift();
    return entry ? { ...entry, ...shown } : shown;
  });
}

/** Names are compared as JSON, so that absent, non-string and string names never mix. */
function nameKey(cache: Record<string, unknown>): string {
  return Object.hasOwn(cache, 'name') ? JSON.stringify(cache.name) : '';
}

function repeatedNames(caches: unknown[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const cache of caches) {
    if (!isPlainObject(cache)) continue;
    const key = nameKey(cache);
    (seen.has(key) ? repeated : seen).add(key);
  }
  return repeated;
}
