import type { KubeApi } from '../kube/kube-api.ts';
import { CrdShapeError, crdPath, readStorageFacts, type StorageFacts } from './custom-resource-definition.ts';
import { haltOn, type Halt } from './halt.ts';
import { MIGRATE_FIELD_MANAGER } from './managed-fields.ts';
import type { Send } from './shard-record.ts';

// The last step of a run that wrote every object: status.storedVersions := [the storage version], so an older version
// can leave the CRD. It is trimmed only for the CRD the run started with; a CRD changed meanwhile (a new storage
// version, a new generation) may hold objects the run wrote in another version.

/** Another writer updates the CRD's status between our read and our write. */
const MAX_STATUS_CONFLICTS = 5;

/** How the trim ended, with storedVersions as it was left. */
export type Trimmed = (Halt | { outcome: 'migrated' } | CrdChanged) & { storedVersionsAfter: string[] };

export interface CrdChanged {
  outcome: 'crd-changed';
  problem: string;
  storedVersionsAfter: string[];
}

/** storedVersions := [S] through the status subresource, guarded by the CRD's resourceVersion. */
export async function trimStoredVersions(
  api: KubeApi,
  send: Send,
  resource: string,
  facts: StorageFacts,
): Promise<Trimmed> {
  const unchanged = facts.storedVersions;
  for (let conflicts = 0; ; conflicts++) {
    const read = await send('read-crd', (signal) => api.request('GET', crdPath(resource), { signal }), 'read the CRD');
    if (!read.ok) return { ...haltOn(read, `read the CRD ${resource}`, api.server), storedVersionsAfter: unchanged };
    const crd = read.value.body as { status?: Record<string, unknown> };
    const changed = crdChangedSince(facts, crd);
    if (changed) return changed;
    const body = { ...crd, status: { ...crd.status, storedVersions: [facts.storageVersion] } };
    const written = await send(
      'write-status',
      (signal) =>
        api.request('PUT', `${crdPath(resource)}/status`, {
          body,
          query: { fieldManager: MIGRATE_FIELD_MANAGER },
          signal,
        }),
      'update the CRD status',
    );
    if (written.ok)
      return { outcome: 'migrated', storedVersionsAfter: readStorageFacts(written.value.body).storedVersions };
    // Someone else wrote the CRD meanwhile: read it again and check again, never overwrite blindly.
    if (written.class === 'conflict' && conflicts < MAX_STATUS_CONFLICTS) continue;
    return {
      ...haltOn(written, `update the status of the CRD ${resource}`, api.server),
      storedVersionsAfter: unchanged,
    };
  }
}

/** The `crd-changed` outcome when `crd`, read before the trim, is not the CRD the run started with (`facts`). */
export function crdChangedSince(facts: StorageFacts, crd: unknown): CrdChanged | undefined {
  let latest: StorageFacts;
  try {
    latest = readStorageFacts(crd);
  } catch (error) {
    if (!(error instanceof CrdShapeError)) throw error;
    return {
      outcome: 'crd-changed',
      problem: `the CRD changed during the run: ${error.message}`,
      storedVersionsAfter: facts.storedVersions,
    };
  }
  if (latest.generation === facts.generation && latest.storageVersion === facts.storageVersion) return undefined;
  const problem = `the CRD changed during the run (generation ${facts.generation} -> ${latest.generation}, storage version ${facts.storageVersion} -> ${latest.storageVersion}); objects written before the change may be in another version`;
  return { outcome: 'crd-changed', problem, storedVersionsAfter: latest.storedVersions };
}
