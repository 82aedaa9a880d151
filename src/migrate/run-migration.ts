import { CrdShapeError, readStorageFacts, storedVersionsTrimmed, type StorageFacts } from './custom-resource-definition.ts';
import { KubeApiError, KubeConfigurationError, KubeTransportError, type KubeApi, type KubeResponse } from './kube-api.ts';
import { mendManagedFields, type ManagedFieldsEntry } from './managed-fields.ts';
import type { MigrationOutcome, MigrationReport, ObjectCounts, ObjectFailure } from './migration-report.ts';
import type { ProgressSnapshot } from './progress-display.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { isRetryable, withRetries, type RetryPolicy, type Sleep } from './retry-policy.ts';

export interface MigrationOptions {
  /** PLURAL.GROUP, the CRD's name. */
  resource: string;
  dryRun: boolean;
  /** Objects written at once. */
  concurrency: number;
  /** Objects per list request. */
  chunkSize: number;
  retry: RetryPolicy;
  limiter: RateLimiter;
  sleep: Sleep;
  /** Aborted when the run is asked to stop (SIGTERM): the writes in flight finish, nothing new starts. */
  stop: AbortSignal;
  onProgress?: (snapshot: ProgressSnapshot) => void;
  onRetry?: (what: string, error: unknown, delayMs: number) => void;
  now?: () => number;
}

/** The run cannot start: no such CRD, no access, no API server. The CLI says it in one line and exits 2. */
export class MigrationConfigError extends Error {
  override name = 'MigrationConfigError';
}

const FIELD_MANAGER = 'crdgate-migrate';
/** A 410 without a token to carry on from means listing again from the start; rewriting is idempotent. */
const MAX_LIST_RESTARTS = 5;
/** Someone else keeps writing the object between our read and our managedFields write. */
const MAX_MEND_CONFLICTS = 5;
/** Another writer updates the CRD's status between our read and our write. */
const MAX_STATUS_CONFLICTS = 5;

interface ListedObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; managedFields?: ManagedFieldsEntry[] };
  [field: string]: unknown;
}

/**
 * The storage-version migration, top to bottom: read the CRD; list the objects a chunk at a time and write each
 * one back unchanged, so the API server stores it in the storage version; then, only if every object made it and
 * the CRD did not change meanwhile, trim status.storedVersions to the storage version.
 */
export async function runMigration(api: KubeApi, options: MigrationOptions): Promise<MigrationReport> {
  const now = options.now ?? (() => performance.now());
  const startedAt = now();
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(options.resource)}`;
  const facts = await readCrdForStart();
  const storageApiVersion = `${facts.group}/${facts.storageVersion}`;
  const rewriteAll = !storedVersionsTrimmed(facts);

  const counts: ObjectCounts = { seen: 0, rewritten: 0, current: 0, gone: 0, failed: 0 };
  const managedFields = { objectsMended: 0, entriesDropped: 0 };
  const failures: ObjectFailure[] = [];
  /** uids already handled, so that a list restarted from the beginning does not count an object twice. */
  const handled = new Set<string>();
  let total: number | undefined;
  let halt: { outcome: 'aborted' | 'interrupted'; problem?: string } | undefined;

  for await (const chunk of listChunks()) {
    await migrateChunk(chunk);
    if (halt) break;
  }
  if (!halt && options.stop.aborted) halt = { outcome: 'interrupted' };
  const { outcome, problem, storedVersionsAfter } = await finish();
  const durationSeconds = (now() - startedAt) / 1000;
  return {
    resource: options.resource,
    server: api.server,
    storageVersion: facts.storageVersion,
    dryRun: options.dryRun,
    storedVersions: { before: facts.storedVersions, after: storedVersionsAfter },
    outcome,
    objects: counts,
    managedFields,
    failures,
    ...(problem ? { problem } : {}),
    durationSeconds,
    objectsPerSecond: durationSeconds > 0 ? counts.seen / durationSeconds : 0,
  };

  async function readCrdForStart(): Promise<StorageFacts> {
    try {
      return readStorageFacts((await send(() => api.request('GET', crdPath), 'read the CRD')).body);
    } catch (error) {
      throw asConfigError(error);
    }
  }

  /** Every object of the resource, in all namespaces, a page at a time. */
  async function* listChunks(): AsyncGenerator<ListedObject[]> {
    const listPath = collectionPath();
    let token: string | undefined;
    let restarts = 0;
    for (;;) {
      if (options.stop.aborted) return;
      let page: KubeResponse;
      try {
        const query = { limit: String(options.chunkSize), ...(token ? { continue: token } : {}) };
        page = await send(() => api.request('GET', listPath, { query }), 'list objects');
      } catch (error) {
        if (error instanceof KubeApiError && error.code === 410 && restarts < MAX_LIST_RESTARTS) {
          // The continue token expired (etcd compacted past it): carry on from the token the server offers, if any.
          restarts++;
          token = error.continueToken;
          continue;
        }
        halt = { outcome: 'aborted', problem: `cannot list ${options.resource}: ${describeError(error)}` };
        return;
      }
      const list = (page.body ?? {}) as { items?: ListedObject[]; metadata?: { continue?: string; remainingItemCount?: number } };
      const items = list.items ?? [];
      // An estimate for the progress display: the server counts what is left unless the list is filtered.
      const remaining = list.metadata?.remainingItemCount;
      if (remaining !== undefined) total = handled.size + items.length + remaining;
      else if (!list.metadata?.continue) total = handled.size + items.length;
      yield items;
      token = list.metadata?.continue || undefined;
      if (!token) return;
    }
  }

  /** A chunk's objects through `concurrency` workers; a halt or a stop request ends it after the writes in flight. */
  async function migrateChunk(items: ListedObject[]): Promise<void> {
    let next = 0;
    async function worker(): Promise<void> {
      while (!halt && !options.stop.aborted && next < items.length) {
        const item = items[next++]!;
        const uid = item.metadata.uid ?? `${item.metadata.namespace}/${item.metadata.name}`;
        if (handled.has(uid)) continue;
        await migrateObject(item);
        handled.add(uid);
        options.onProgress?.({ done: counts.seen, total, elapsedMs: now() - startedAt });
      }
    }
    await Promise.all(Array.from({ length: Math.min(options.concurrency, items.length) }, worker));
  }

  /** One object: write it back as listed (managedFields mended), and count what the API server said. */
  async function migrateObject(listed: ListedObject): Promise<void> {
    let object = listed;
    let mend = mendManagedFields(object.metadata.managedFields, facts.servedApiVersions, storageApiVersion);
    if (!rewriteAll && !mend) return count('current');
    for (let conflicts = 0; ; conflicts++) {
      const body = mend ? { ...object, metadata: { ...object.metadata, managedFields: mend.entries } } : object;
      try {
        const written = await send(() => api.request('PUT', objectPath(object), { query: writeQuery(), body }), `rewrite ${describeObject(object)}`);
        if (mend) {
          managedFields.objectsMended++;
          managedFields.entriesDropped += mend.dropped;
        }
        // The API server skips a write whose bytes equal what is stored: the same resourceVersion means the
        // object was already stored in the storage version. A dry run never writes, so it cannot tell.
        const unchanged = !options.dryRun && resourceVersionOf(written.body) === object.metadata.resourceVersion;
        return count(unchanged ? 'current' : 'rewritten');
      } catch (error) {
        if (!(error instanceof KubeApiError)) return haltOn(error, object);
        // Only a 404 about this very object means it was deleted; any other leaves it unmigrated, never "gone".
        if (error.code === 404 && error.objectName === object.metadata.name) return count('gone');
        if (error.code === 409) {
          // Written by someone else since we listed it, so already stored in the storage version. Their write kept
          // the old managedFields, though: read it again and mend those.
          if (!mend) return count('current');
          if (conflicts >= MAX_MEND_CONFLICTS) return fail(object, error.code, `still changing after ${conflicts} attempts to mend its managedFields`);
          const fresh = await readObject(object);
          if (fresh === 'gone') return count('gone');
          if (fresh instanceof Error) return haltOn(fresh, object);
          object = fresh;
          mend = mendManagedFields(object.metadata.managedFields, facts.servedApiVersions, storageApiVersion);
          if (!mend) return count('current');
          continue;
        }
        if (isRetryable(error) || error.code === 401) return haltOn(error, object);
        // 400, 403, 422 and the like: an answer about this object (an admission webhook refusing it, for example).
        return fail(object, error.code, error.message);
      }
    }
  }

  /** A fresh copy through a list by name: the job's RBAC then needs list and update on objects, not get. */
  async function readObject(object: ListedObject): Promise<ListedObject | 'gone' | Error> {
    const query = { fieldSelector: `metadata.name=${object.metadata.name}` };
    try {
      const page = await send(() => api.request('GET', collectionPath(object.metadata.namespace), { query }), `read ${describeObject(object)}`);
      return ((page.body as { items?: ListedObject[] } | undefined)?.items ?? [])[0] ?? 'gone';
    } catch (error) {
      return error as Error;
    }
  }

  /** After the objects: decide the outcome, and trim storedVersions only when everything is in order. */
  async function finish(): Promise<{ outcome: MigrationOutcome; problem?: string; storedVersionsAfter: string[] }> {
    const unchanged = facts.storedVersions;
    if (halt) return { ...halt, storedVersionsAfter: unchanged };
    if (counts.failed > 0) return { outcome: 'failed', storedVersionsAfter: unchanged };
    if (options.dryRun) return { outcome: 'dry-run', storedVersionsAfter: unchanged };
    if (!rewriteAll) return { outcome: managedFields.objectsMended > 0 ? 'mended' : 'nothing-to-do', storedVersionsAfter: unchanged };
    try {
      return await trimStoredVersions();
    } catch (error) {
      return { outcome: 'aborted', problem: `cannot update the CRD's status: ${describeError(error)}`, storedVersionsAfter: unchanged };
    }
  }

  /** storedVersions := [S] through the status subresource, guarded by the CRD's resourceVersion. */
  async function trimStoredVersions(): Promise<{ outcome: MigrationOutcome; problem?: string; storedVersionsAfter: string[] }> {
    for (let conflicts = 0; ; conflicts++) {
      const crd = (await send(() => api.request('GET', crdPath), 'read the CRD')).body as { status?: Record<string, unknown> };
      const latest = readStorageFacts(crd);
      if (latest.generation !== facts.generation || latest.storageVersion !== facts.storageVersion) {
        const problem = `the CRD changed during the run (generation ${facts.generation} -> ${latest.generation}, storage version ${facts.storageVersion} -> ${latest.storageVersion}); objects written before the change may be in another version`;
        return { outcome: 'crd-changed', problem, storedVersionsAfter: latest.storedVersions };
      }
      const body = { ...crd, status: { ...crd.status, storedVersions: [facts.storageVersion] } };
      try {
        const written = await send(() => api.request('PUT', `${crdPath}/status`, { body, query: { fieldManager: FIELD_MANAGER } }), 'update the CRD status');
        return { outcome: 'migrated', storedVersionsAfter: readStorageFacts(written.body).storedVersions };
      } catch (error) {
        // Someone else wrote the CRD meanwhile: read it again and check again, never overwrite blindly.
        if (!(error instanceof KubeApiError && error.code === 409) || conflicts >= MAX_STATUS_CONFLICTS) throw error;
      }
    }
  }

  function count(outcome: 'rewritten' | 'current' | 'gone'): void {
    counts.seen++;
    counts[outcome]++;
  }

  function fail(object: ListedObject, code: number, message: string): void {
    counts.seen++;
    counts.failed++;
    failures.push({ ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}), name: object.metadata.name, code, message });
  }

  /** The API server kept failing (or refuses our credentials): stop taking objects; this one is not done. */
  function haltOn(error: unknown, object: ListedObject): void {
    if (!(error instanceof KubeApiError || error instanceof KubeTransportError || error instanceof KubeConfigurationError)) throw error;
    halt ??= { outcome: 'aborted', problem: `${describeObject(object)}: ${describeError(error)}` };
  }

  function send(call: () => Promise<KubeResponse>, what: string): Promise<KubeResponse> {
    return withRetries(
      async () => {
        await options.limiter.take();
        return call();
      },
      options.retry,
      options.sleep,
      (error, delayMs) => options.onRetry?.(what, error, delayMs),
    );
  }

  function writeQuery(): Record<string, string> {
    return { fieldManager: FIELD_MANAGER, ...(options.dryRun ? { dryRun: 'All' } : {}) };
  }

  /** The resource in the storage version: across all namespaces, or in one. */
  function collectionPath(namespace?: string): string {
    const scope = facts.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `/apis/${facts.group}/${facts.storageVersion}${scope}/${facts.plural}`;
  }

  function objectPath(object: ListedObject): string {
    return `${collectionPath(object.metadata.namespace)}/${encodeURIComponent(object.metadata.name)}`;
  }

  function asConfigError(error: unknown): Error {
    if (error instanceof KubeApiError) {
      if (error.code === 404) return new MigrationConfigError(`no CustomResourceDefinition named ${options.resource} at ${api.server}`);
      if (error.code === 401) return new MigrationConfigError(`the API server at ${api.server} does not accept the credentials: ${error.message}`);
      if (error.code === 403) return new MigrationConfigError(`not allowed to read the CRD ${options.resource}: ${error.message}`);
      return new MigrationConfigError(`cannot read the CRD ${options.resource}: HTTP ${error.code}: ${error.message}`);
    }
    if (error instanceof KubeTransportError) return new MigrationConfigError(`cannot reach the API server at ${api.server}: ${error.message}`);
    if (error instanceof CrdShapeError || error instanceof KubeConfigurationError) return new MigrationConfigError(error.message);
    return error as Error;
  }
}

function resourceVersionOf(body: unknown): string | undefined {
  return (body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
}

function describeObject(object: ListedObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name;
}

function describeError(error: unknown): string {
  if (error instanceof KubeApiError) return `HTTP ${error.code}${error.reason ? ` ${error.reason}` : ''}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}
