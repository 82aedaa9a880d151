import { isPlainObject, parseVersion, type Defaulter, type ObjectMeta } from '../../index.ts';
import { labels } from './types.ts';
import { defaultRedisVersion } from './versions.ts';

/**
 * Fills absent fields only: a value the user set is never rewritten, or GitOps tools would fight the webhook.
 * The postgres-major label is derived data rather than user intent, so it is kept in step with the spec.
 * Parts of the object with the wrong type are left alone: validation reports them.
 *
 * Copy on write: what needs no default is returned as the very same object, so the patch that follows skips it
 * (managedFields and the last-applied annotation are most of a typical object's bytes).
 */
export const defaultGeoDatabase: Defaulter = (object) => {
  const spec = isPlainObject(object.spec) ? defaultSpec(object.spec) : object.spec;
  const metadata = withPostgresMajorLabel(object.metadata, spec);
  return spec === object.spec && metadata === object.metadata ? object : { ...object, spec, metadata };
};

function defaultSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const additions: Record<string, unknown> = {};
  if (spec.readReplicas === undefined) additions.readReplicas = 0;
  if (spec.caches === undefined) additions.caches = [];
  else if (Array.isArray(spec.caches)) {
    const caches = spec.caches.map(defaultCache);
    if (caches.some((cache, index) => cache !== (spec.caches as unknown[])[index])) additions.caches = caches;
  }
  return Object.keys(additions).length === 0 ? spec : { ...spec, ...additions };
}

function defaultCache(cache: unknown): unknown {
  if (!isPlainObject(cache) || (cache.version !== undefined && cache.replicas !== undefined)) return cache;
  return { ...cache, version: cache.version ?? defaultRedisVersion, replicas: cache.replicas ?? 1 };
}

function withPostgresMajorLabel(metadata: ObjectMeta | undefined, spec: unknown): ObjectMeta | undefined {
  const postgres = isPlainObject(spec) && isPlainObject(spec.postgres) ? spec.postgres : undefined;
  const major = parseVersion(postgres?.version)?.[0];
  if (major === undefined) return metadata;
  if (metadata?.labels !== undefined && !isPlainObject(metadata.labels)) return metadata;
  const current = metadata?.labels ?? {};
  if (current[labels.postgresMajor] === String(major)) return metadata;
  return { ...metadata, labels: { ...current, [labels.postgresMajor]: String(major) } };
}

