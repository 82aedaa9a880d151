/**
 * managedFields entries recorded in a version the CRD no longer serves make every later server-side apply of the
 * object fail (kubernetes/kubernetes#111937): the API server cannot convert the entry's field set to that version.
 * The migration drops such entries in the same write that moves the object to the storage version.
 */
/**
 * The field manager of every write the migration makes (objects, the CRD's status, the shards' record): one name,
 * so that managedFields show one owner, and a server-side apply of the record's ConfigMap leaves the shards' keys be.
 */
export const MIGRATE_FIELD_MANAGER = 'crdgate-migrate';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export interface MendedManagedFields {
  entries: ManagedFieldsEntry[];
  dropped: number;
}

/**
 * The entries to keep, or undefined when every entry is in a served version. When none would be left, a seed
 * entry owning only metadata.name takes their place: an empty list in a write means "unchanged" to the API server,
 * and an object without entries gets a made-up co-owner on its first apply (Cluster API's crdmigrator does the same).
 */
export function mendManagedFields(
  entries: readonly ManagedFieldsEntry[] | undefined,
  servedApiVersions: ReadonlySet<string>,
  storageApiVersion: string,
): MendedManagedFields | undefined {
  if (!entries || entries.length === 0) return undefined;
  const kept = entries.filter((entry) => entry.apiVersion !== undefined && servedApiVersions.has(entry.apiVersion));
  if (kept.length === entries.length) return undefined;
  const dropped = entries.length - kept.length;
  if (kept.length > 0) return { entries: kept, dropped };
  const first = entries[0]!;
  return {
    dropped,
    entries: [
      {
        manager: first.manager ?? MIGRATE_FIELD_MANAGER,
        operation: first.operation ?? 'Update',
        apiVersion: storageApiVersion,
        time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:name': {} } },
      },
    ],
  };
}
