/** What a plan to take a version out of a CRD needs: the CRD, the version, and where its objects go. */
export interface MigrateTarget {
  /** metadata.name of the CRD: `plural.group`. */
  resource: string;
  /** The version to take out, which objects may be stored in. */
  removed: string;
  /** The storage version of the revision that removes it, where `crdgate migrate` rewrites them. */
  target: string | undefined;
  /** Whether the revision applied now already keeps `removed` with `target` as its storage version. */
  targetStoresAlready?: boolean;
}

/**
 * The steps that let a revision remove a version objects are stored in: every object must be rewritten in a
 * version the revision keeps, and status.storedVersions trimmed, before the version can go. `crdgate migrate` does
 * both, under a revision that still has the version and stores in the one that stays.
 */
export function migratePlan({ resource, removed, target, targetStoresAlready = false }: MigrateTarget): string {
  const version = target ?? 'the new storage version';
  return (
    (targetStoresAlready
      ? ''
      : `first apply a revision that keeps ${removed} in spec.versions with ${version} as the storage version, then `) +
    `run \`crdgate migrate --resource ${resource}\` (it rewrites every object in ${version} and trims status.storedVersions to it), ` +
    'then apply this revision'
  );
}
