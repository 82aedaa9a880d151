import type { CrdRevisionUnderTest } from './revision-under-test.ts';

/**
 * The steps that let a revision remove a version objects are stored in: every object must be rewritten in a
 * version the revision keeps, and status.storedVersions trimmed, before the version can go. `crdgate migrate` does
 * both, under a revision that still has the version and stores in the one that stays.
 */
export function migratePlan(revision: CrdRevisionUnderTest, removed: string): string {
  const target = revision.new.storage ?? 'the new storage version';
  const resource = revision.name;
  return (
    `first apply a revision that keeps ${removed} in spec.versions with ${target} as the storage version, ` +
    `then run \`crdgate migrate --resource ${resource}\` (it rewrites every object in ${target} and trims status.storedVersions to it), ` +
    'then apply this revision'
  );
}
