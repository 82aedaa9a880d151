import { derivedDefault, staticDefault, type Defaulter } from '../../index.ts';
import { labels } from './types.ts';
import { defaultRedisVersion } from './versions.ts';

/**
 * Fills absent fields only: a value the user set is never rewritten, or GitOps tools would fight the webhook.
 * The postgres-major label is derived data rather than user intent, so it is kept in step with the spec.
 * Parts of the object with the wrong type are left alone: validation reports them.
 *
 * Every one is the library's, so data as well as code: the policy floor's MutatingAdmissionPolicy sets them all
 * while crdgate is down, as the webhook would.
 */
export const geoDatabaseDefaults: readonly Defaulter[] = [
  staticDefault('spec.readReplicas', 0),
  staticDefault('spec.caches', []),
  staticDefault('spec.caches[*].version', defaultRedisVersion),
  staticDefault('spec.caches[*].replicas', 1),
  derivedDefault(`metadata.labels[${labels.postgresMajor}]`, {
    from: 'spec.postgres.version',
    compute: 'release-major',
    keepInStep: true,
  }),
];
