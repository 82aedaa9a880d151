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
import {
  formatWholeUnits,
  gibibyte,
  mebibyte,
  spelledAsWholeUnits,
  wholeUnitsRoundedUp,
} from './conversion-whole-units.ts';

/**
 * v1alpha1 is flat: `postgresVersion`, `postgisVersion`, `replicas` (v1's `readReplicas`), `storageGB` (whole GiB)
 * and `cacheMB` (the memory of the one cache, named `default`, in whole MiB; 0 means no such cache, and absent
 * means v1 has no `caches` at all).
 *
 * Sizes are rounded UP to whole GiB or MiB (see wholeUnitsRoundedUp); a size that is not exactly what the count
 * spells ("51200Mi" shows as 50, but 50 spells "50Gi"; "1.5Gi" shows as 2) is kept as written in the stash.
 *
 * The stash (annotation geo.example.com/conversion-data), with only the fields that have something in them:
 * - `spec`: v1 spec fields v1alpha1 cannot show, at their v1 paths: `storage.storageClassName`, `storage.size` when
 *   storageGB does not spell it, anything else v1 has that v1alpha1 lacks;
 * - `defaultCache`: what the cache shown as cacheMB has besides its name and a memory cacheMB spells:
 *   `{"version":"7.2","replicas":1}`, and `defaultCacheAt`, its position among the caches when it is not the last;
 * - `otherCaches`: every other cache, whole and in order.
 * Each stashed value is restored only while the v1alpha1 field it stands behind still shows it: a size only while
 * storageGB is unchanged, the default cache's version and replicas only while cacheMB is not 0, and so on; an edit
 * made in v1alpha1 always wins.
 */
export const v1alpha1Conversion: SpokeConversion = specMappingConversion({
  mapping: {
    down: specToV1alpha1,
    up: specFromV1alpha1,
  } satisfies SpecMapping,
  hubToSpokePaths: {
    'spec.postgres.version': 'spec.postgresVersion',
    'spec.postgres.postgis': 'spec.postgisVersion',
    'spec.readReplicas': 'spec.replicas',
    'spec.storage.size': 'spec.storageGB',
    // A v1alpha1 client writes one cache's memory, cacheMB; the other caches come back from the stash, written
    // through v1 and checked there. So a memory error it causes is cacheMB's, and so is a total over the limit,
    // while anything else about a cache (a repeated name, say) is no field of v1alpha1's.
    'spec.caches': 'spec.cacheMB',
    'spec.caches[*]': null,
    'spec.caches[*].memory': 'spec.cacheMB',
  },
});

const defaultCacheName = 'default';

function specToV1alpha1(hubSpec: Record<string, unknown>): { spec: Record<string, unknown>; lost: LostData } {
  const { postgres, readReplicas, storage, caches, ...unmapped } = hubSpec;
  const lostSpec: Record<string, unknown> = { ...unmapped };
  const lost: LostData = {};
  const spec: Record<string, unknown> = {};

  if (isPlainObject(postgres)) {
    const { version, postgis, ...others } = postgres;
    Object.assign(spec, presentFields({ postgresVersion: version, postgisVersion: postgis }));
    // An empty postgres object is lost too: without a version, nothing in v1alpha1 says it was there.
    if (Object.keys(others).length > 0 || (version === undefined && postgis === undefined)) lostSpec.postgres = others;
  } else if (postgres !== undefined) {
    lostSpec.postgres = postgres;
  }

  if (readReplicas !== undefined) spec.replicas = readReplicas;

  if (isPlainObject(storage)) {
    const { size, ...others } = storage;
    const storageGB = wholeUnitsRoundedUp(size, gibibyte);
    if (storageGB !== undefined) spec.storageGB = storageGB;
    const lostStorage =
      spelledAsWholeUnits(size, storageGB, gibibyte) || size === undefined ? others : { ...others, size };
    if (Object.keys(lostStorage).length > 0 || storageGB === undefined) lostSpec.storage = lostStorage;
  } else if (storage !== undefined) {
    lostSpec.storage = storage;
  }

  if (Array.isArray(caches)) {
    const shown = cachesToV1alpha1(caches);
    spec.cacheMB = shown.cacheMB;
    Object.assign(lost, shown.lost);
  } else if (caches !== undefined) {
    lostSpec.caches = caches;
  }

  if (Object.keys(lostSpec).length > 0) lost.spec = lostSpec;
  return { spec, lost };
}

/**
 * cacheMB shows the first cache named `default`, if its memory is a positive quantity; anything else about the
 * caches is stashed. A default cache cacheMB cannot show (memory missing, zero, or no quantity) is one of the others.
 */
function cachesToV1alpha1(caches: unknown[]): { cacheMB: number; lost: LostData } {
  const at = caches.findIndex((cache) => isPlainObject(cache) && cache.name === defaultCacheName);
  const candidate = caches[at];
  const cacheMB = isPlainObject(candidate) ? positiveMiB(candidate.memory) : undefined;
  if (!isPlainObject(candidate) || cacheMB === undefined) {
    return { cacheMB: 0, lost: caches.length > 0 ? { otherCaches: caches } : {} };
  }
  const others = splitFields(candidate, ['name', 'memory']).lost ?? {};
  const { memory } = candidate;
  const lostDefault = spelledAsWholeUnits(memory, cacheMB, mebibyte) ? others : { ...others, memory };
  const otherCaches = caches.filter((_, index) => index !== at);
  return {
    cacheMB,
    lost: presentFields({
      defaultCache: Object.keys(lostDefault).length > 0 ? lostDefault : undefined,
      defaultCacheAt: at === otherCaches.length ? undefined : at,
      otherCaches: otherCaches.length > 0 ? otherCaches : undefined,
    }),
  };
}

function specFromV1alpha1(spokeSpec: Record<string, unknown>, lost: LostData | undefined): Record<string, unknown> {
  const { postgresVersion, postgisVersion, replicas, storageGB, cacheMB } = spokeSpec;
  const lostSpec = isPlainObject(lost?.spec) ? lost.spec : {};
  const postgresFields = presentFields({ version: postgresVersion, postgis: postgisVersion });
  const shownPostgres = Object.keys(postgresFields).length > 0 ? postgresFields : undefined;
  return {
    ...lostSpec,
    ...presentFields({
      postgres: overlay(lostSpec.postgres, shownPostgres),
      readReplicas: replicas,
      storage: storageFromV1alpha1(wholeCount(storageGB, 'spec.storageGB', 'GiB'), lostSpec.storage),
      caches: cachesFromV1alpha1(wholeCount(cacheMB, 'spec.cacheMB', 'MiB'), lost ?? {}),
    }),
  };
}

function storageFromV1alpha1(storageGB: number | undefined, lostStorage: unknown): unknown {
  if (!isPlainObject(lostStorage)) {
    return storageGB === undefined ? lostStorage : { size: formatWholeUnits(storageGB, gibibyte) };
  }
  const { size: lostSize, ...others } = lostStorage;
  // The stashed size holds only while it still shows as the storageGB v1alpha1 has now.
  const stillShown = lostSize !== undefined && wholeUnitsRoundedUp(lostSize, gibibyte) === storageGB;
  if (stillShown) return { ...others, size: lostSize };
  return storageGB === undefined ? others : { ...others, size: formatWholeUnits(storageGB, gibibyte) };
}

function cachesFromV1alpha1(cacheMB: number | undefined, lost: LostData): unknown[] | undefined {
  if (cacheMB === undefined) return undefined;
  const otherCaches = Array.isArray(lost.otherCaches) ? lost.otherCaches : [];
  if (cacheMB === 0) return otherCaches;
  const { memory: lostMemory, ...others } = isPlainObject(lost.defaultCache) ? lost.defaultCache : {};
  const memory = positiveMiB(lostMemory) === cacheMB ? lostMemory : formatWholeUnits(cacheMB, mebibyte);
  const defaultCache = { ...others, name: defaultCacheName, memory };
  const { defaultCacheAt } = lost;
  const placed = typeof defaultCacheAt === 'number' && Number.isSafeInteger(defaultCacheAt);
  const at = placed ? Math.max(0, defaultCacheAt) : otherCaches.length;
  return [...otherCaches.slice(0, at), defaultCache, ...otherCaches.slice(at)];
}

function positiveMiB(memory: unknown): number | undefined {
  const mib = wholeUnitsRoundedUp(memory, mebibyte);
  return mib === undefined || mib === 0 ? undefined : mib;
}

/** A v1alpha1 count (storageGB, cacheMB) as a number of units, or undefined when absent. */
function wholeCount(value: unknown, field: string, unit: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new Error(`${field} must be a whole number of ${unit}, 0 or more, not ${JSON.stringify(value)}`);
}
