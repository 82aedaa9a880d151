import type { Defaulter } from '../../contract/define-contract.ts';
import { isPlainObject, type KubeObject } from '../../contract/kube-object.ts';
import { labels } from './types.ts';
import { defaultRedisVersion, parseVersion } from './versions.ts';

/**
 * Fills absent fields only: a value the user set is never rewritten, or GitOps tools would fight the webhook.
 * The postgres-major label is derived data rather than user intent, so it is kept in step with the spec.
 * Parts of the object with the wrong type are left alone: validation reports them.
 */
export const defaultGeoDatabase: Defaulter = (object) => {
  const result = structuredClone(object);
  if (isPlainObject(result.spec)) defaultSpec(result.spec);
  defaultPostgresMajorLabel(result);
  return result;
};

function defaultSpec(spec: Record<string, unknown>): void {
  if (spec.readReplicas === undefined) spec.readReplicas = 0;
  if (spec.caches === undefined) spec.caches = [];
  if (!Array.isArray(spec.caches)) return;
  for (const cache of spec.caches) {
    if (!isPlainObject(cache)) continue;
    if (cache.version === undefined) cache.version = defaultRedisVersion;
    if (cache.replicas === undefined) cache.replicas = 1;
  }
}

function defaultPostgresMajorLabel(object: KubeObject): void {
  const spec = isPlainObject(object.spec) ? object.spec : undefined;
  const postgres = isPlainObject(spec?.postgres) ? spec.postgres : undefined;
  const major = parseVersion(postgres?.version)?.[0];
  if (major === undefined) return;
  const metadata = (object.metadata ??= {});
  if (metadata.labels !== undefined && !isPlainObject(metadata.labels)) return;
  const current = metadata.labels ?? {};
  if (current[labels.postgresMajor] === String(major)) return;
  metadata.labels = { ...current, [labels.postgresMajor]: String(major) };
}
