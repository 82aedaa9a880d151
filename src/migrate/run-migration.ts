import { CrdShapeError, readStorageFacts, storedVersionsTrimmed, type StorageFacts } from './custom-resource-definition.ts';
import { KubeApiError, KubeConfigurationError, KubeTransportError, type KubeApi, type KubeResponse } from '../kube/kube-api.ts';
import { createListProgress } from './list-progress.ts';
import { mendManagedFields, type ManagedFieldsEntry } from './managed-fields.ts';
import { explainStoredVersions, MAX_FAILURES_LISTED, type MigrationOutcome, type MigrationReport, type ObjectCounts, type ObjectFailure, type ShardReport, type WriteVia } from './migration-report.ts';
import type { ProgressSnapshot } from './progress-display.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { withRetries, type Attempt, type Failure, type Operation, type RetryPolicy, type Sleep, type StopCause } from './retry-policy.ts';
import { describeRecord, judgeShards, recordShardResult, type RecordRef } from './shard-record.ts';
import { describeShard, inShard, wholeCollection, type Shard } from './shard.ts';
import { IN_FLIGHT_GRACE_MS } from './stop.ts';
import { namespacedName } from '../contract/kube-object.ts';

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
  /** Write only this shard's objects (shard.ts); without it, every object. */
  shard?: Shard;
  /**
   * The ConfigMap where the shards record their results (shard-record.ts); storedVersions is trimmed only when every
   * shard has succeeded for the same CRD generation and storage version. Required with more than one shard.
   */
  record?: RecordRef;
  /**
   * `status` writes each object back through its status subresource: the API server stores the whole object again,
   * and admission registered for the resource's own updates (a webhook, a policy) never sees the write.
   */
  via?: WriteVia;
  /**
   * Aborted when the run is asked to stop (SIGTERM): nothing new starts, backoff and rate-limiter waits end at once,
   * and a request in flight gets `inFlightGraceMs` to finish before it is abandoned.
   */
  stop: AbortSignal;
  inFlightGraceMs?: number;
  onProgress?: (snapshot: ProgressSnapshot) => void;
  onRetry?: (what: string, error: unknown, delayMs: number) => void;
  now?: () => number;
}

/** The run cannot start: no such CRD, no access, no API server. The CLI says it in one line and exits 2. */
export class MigrationConfigError extends Error {
  override name = 'MigrationConfigError';
}

/** Stopped by a signal before the CRD was read: there is nothing to report but that. */
export class MigrationInterruptedError extends Error {
  override name = 'MigrationInterruptedError';
}

const FIELD_MANAGER = 'crdgate-migrate';
/**
 * 410s in a row with no page listed between them. A long list meets one every few compactions of etcd (every 5
 * minutes by default) and carries on; only 410s that bring no progress end the run.
 */
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

interface ListPage {
  items?: ListedObject[];
  metadata?: { continue?: string; remainingItemCount?: number };
}

type Halt = { outcome: 'aborted'; cause: StopCause; problem: string } | { outcome: 'interrupted' };
interface Finish {
  outcome: MigrationOutcome;
  cause?: StopCause;
  problem?: string;
  storedVersionsAfter: string[];
}

/**
 * The storage-version migration, top to bottom: read the CRD; list the objects a chunk at a time and write each
 * one back unchanged, so the API server stores it in the storage version; then, only if every object made it and
 * the CRD did not change meanwhile, trim status.storedVersions to the storage version. Every failed request is
 * classified once (retry-policy.ts) and acted on here by its class.
 */
export async function runMigration(api: KubeApi, options: MigrationOptions): Promise<MigrationReport> {
  const now = options.now ?? (() => performance.now());
  const startedAt = now();
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(options.resource)}`;
  const requests = abandonAfterStop(options.stop, options.inFlightGraceMs ?? IN_FLIGHT_GRACE_MS);
  try {
    return await run();
  } finally {
    requests.dispose();
  }

  async function run(): Promise<MigrationReport> {
    const facts = await readCrdForStart();
    const shard = options.shard ?? wholeCollection;
    if (shard.count > 1 && !options.record) {
      throw new MigrationConfigError(`shard ${describeShard(shard)} needs a record (--record NAMESPACE/NAME): without the other shards' results no shard may trim storedVersions`);
    }
    const via = options.via ?? 'object';
    if (via === 'status' && !facts.storageHasStatus) {
      throw new MigrationConfigError(
        `--via status: the CRD ${options.resource} has no status subresource in its storage version ${facts.storageVersion}, so objects can only be written as themselves (run without --via status)`,
      );
    }
    const storageApiVersion = `${facts.group}/${facts.storageVersion}`;
    const rewriteAll = !storedVersionsTrimmed(facts);
    const collectionPath = (namespace?: string): string => {
      const scope = facts.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
      return `/apis/${facts.group}/${facts.storageVersion}${scope}/${facts.plural}`;
    };
    const objectPath = (object: ListedObject): string => `${collectionPath(object.metadata.namespace)}/${encodeURIComponent(object.metadata.name)}`;
    const writePath = (object: ListedObject): string => (via === 'status' ? `${objectPath(object)}/status` : objectPath(object));

    const counts: ObjectCounts = { seen: 0, rewritten: 0, current: 0, gone: 0, failed: 0 };
    const managedFields = { objectsMended: 0, entriesDropped: 0 };
    const failures: ObjectFailure[] = [];
    /**
     * The last object of the last chunk done. Lists come in key order (namespace/name: continue tokens are keys), so
     * a list started again from the beginning after a 410 skips everything up to it: nothing is written or counted
     * twice, and what the run keeps in memory is a chunk, not a set of every object seen. An object created since
     * that sorts before it needs no write: it was stored in the storage version when it was created.
     */
    let doneUpTo: string | undefined;
    /** Objects the lists returned past doneUpTo: this shard's and the others'. */
    let listed = 0;
    const listProgress = createListProgress();
    let halt: Halt | undefined;

    // List a chunk, migrate it, carry on from its token.
    let token: string | undefined;
    let relists = 0;
    while (!halt && !options.stop.aborted) {
      const query = { limit: String(options.chunkSize), ...(token ? { continue: token } : {}) };
      const listed = await send('list', (signal) => api.request('GET', collectionPath(), { query, signal }), `list ${options.resource}`);
      if (!listed.ok) {
        if (listed.class === 'expired' && relists < MAX_LIST_RESTARTS) {
          // The continue token expired (etcd compacted past it): carry on from the token the server offers, or list
          // again from the start; objects already handled are skipped, so none is written or counted twice.
          relists++;
          token = listed.continueToken;
          if (!token) listProgress.restart();
          continue;
        }
        halt ??= haltOn(listed, `list ${options.resource}`);
        break;
      }
      relists = 0;
      const page = (listed.value.body ?? {}) as ListPage;
      const items = page.items ?? [];
      token = page.metadata?.continue || undefined;
      listProgress.page(items.length, page.metadata?.remainingItemCount, token !== undefined);
      await migrateChunk(items);
      const last = items.at(-1);
      // Never backwards: the first pages of a list started again end before what the first pass did.
      if (!halt && !options.stop.aborted && last && (doneUpTo === undefined || listKey(last) > doneUpTo)) doneUpTo = listKey(last);
      if (!token) break;
    }
    if (!halt && options.stop.aborted) halt = { outcome: 'interrupted' };
    const shardReport: ShardReport | undefined =
      options.shard || options.record ? { index: shard.index, count: shard.count, ...(options.record ? { record: describeRecord(options.record) } : {}), listed } : undefined;
    const { outcome, cause, problem, storedVersionsAfter } = await finish(shardReport);
    const durationSeconds = (now() - startedAt) / 1000;
    const report: Omit<MigrationReport, 'storedVersions'> & { storedVersions: { before: string[]; after: string[] } } = {
      resource: options.resource,
      server: api.server,
      storageVersion: facts.storageVersion,
      generation: facts.generation,
      dryRun: options.dryRun,
      via,
      storedVersions: { before: facts.storedVersions, after: storedVersionsAfter },
      outcome,
      ...(cause ? { cause } : {}),
      ...(shardReport ? { shard: shardReport } : {}),
      objects: counts,
      managedFields,
      failures,
      ...(problem ? { problem } : {}),
      durationSeconds,
      objectsPerSecond: durationSeconds > 0 ? counts.seen / durationSeconds : 0,
    };
    return { ...report, storedVersions: { ...report.storedVersions, why: explainStoredVersions(report) } };

    /**
     * A chunk's objects through `concurrency` workers; a halt or a stop request ends it after the writes in flight.
     * A crash (a bug, not an API failure) stops the other workers too, then propagates.
     */
    async function migrateChunk(items: ListedObject[]): Promise<void> {
      let next = 0;
      let crash: { error: unknown } | undefined;
      async function worker(): Promise<void> {
        while (!halt && !crash && !options.stop.aborted && next < items.length) {
          const item = items[next++]!;
          if (doneUpTo !== undefined && listKey(item) <= doneUpTo) continue;
          listed++;
          if (inShard(item.metadata, shard)) {
            try {
              await migrateObject(item);
            } catch (error) {
              crash ??= { error };
              return;
            }
          }
          const own = shard.count > 1 ? { own: counts.seen } : {};
          options.onProgress?.({ done: listed, total: listProgress.total, elapsedMs: now() - startedAt, ...own });
        }
      }
      await Promise.all(Array.from({ length: Math.min(options.concurrency, items.length) }, worker));
      if (crash) throw crash.error;
    }

    /** One object: write it back as listed (managedFields mended), and count what the API server said. */
    async function migrateObject(listed: ListedObject): Promise<void> {
      let object = listed;
      let mend = mendManagedFields(object.metadata.managedFields, facts.servedApiVersions, storageApiVersion);
      if (!rewriteAll && !mend) return count('current');
      for (let conflicts = 0; ; conflicts++) {
        // A subresource write cannot set managedFields, and the API server, unable to convert an entry of a version
        // it no longer serves, clears every entry of the object instead: better not written than stripped of them.
        if (mend && via === 'status') return fail(object, NOT_SENT, unmendableThroughStatus(object, facts.servedApiVersions));
        const body = mend ? { ...object, metadata: { ...object.metadata, managedFields: mend.entries } } : object;
        const what = `rewrite ${namespacedName(object.metadata)}${via === 'status' ? ' through its status subresource' : ''}`;
        const written = await send('write-object', (signal) => api.request('PUT', writePath(object), { query: writeQuery(), body, signal }), what);
        if (written.ok) {
          if (mend) {
            managedFields.objectsMended++;
            managedFields.entriesDropped += mend.dropped;
          }
          // The API server skips a write whose bytes equal what is stored: the same resourceVersion means the
          // object was already stored in the storage version. A dry run never writes, so it cannot tell.
          const unchanged = !options.dryRun && resourceVersionOf(written.value.body) === object.metadata.resourceVersion;
          return count(unchanged ? 'current' : 'rewritten');
        }
        switch (written.class) {
          case 'gone':
            return count('gone');
          case 'refused':
            return fail(object, written.error.code, written.error.message);
          case 'conflict': {
            // Written by someone else since we listed it, so already stored in the storage version. Their write kept
            // the old managedFields, though: read it again and mend those.
            if (!mend) return count('current');
            if (conflicts >= MAX_MEND_CONFLICTS) return fail(object, 409, `still changing after ${conflicts} attempts to mend its managedFields`);
            const fresh = await readObject(object);
            if (fresh === 'gone') return count('gone');
            if (!('metadata' in fresh)) {
              halt ??= haltOn(fresh, `read ${namespacedName(object.metadata)}`);
              return;
            }
            object = fresh;
            mend = mendManagedFields(object.metadata.managedFields, facts.servedApiVersions, storageApiVersion);
            if (!mend) return count('current');
            continue;
          }
          default:
            // This object is not done; the run stops taking others.
            halt ??= haltOn(written, what);
            return;
        }
      }
    }

    /** A fresh copy through a list by name: the job's RBAC then needs list and update on objects, not get. */
    async function readObject(object: ListedObject): Promise<ListedObject | 'gone' | Failure> {
      const query = { fieldSelector: `metadata.name=${object.metadata.name}` };
      const page = await send('list', (signal) => api.request('GET', collectionPath(object.metadata.namespace), { query, signal }), `read ${namespacedName(object.metadata)}`);
      if (!page.ok) return page;
      return ((page.value.body as ListPage | undefined)?.items ?? [])[0] ?? 'gone';
    }

    /**
     * After the objects: decide the outcome, and trim storedVersions only when everything is in order. A shard first
     * records its result, then trims only if the record shows every shard succeeded for this generation and storage
     * version. A run that stopped early records nothing: its key keeps what an earlier run of the index wrote.
     */
    async function finish(shardReport: ShardReport | undefined): Promise<Finish> {
      const unchanged = facts.storedVersions;
      if (halt) return { ...halt, storedVersionsAfter: unchanged };
      if (options.dryRun) return { outcome: counts.failed > 0 ? 'failed' : 'dry-run', storedVersionsAfter: unchanged };
      if (options.record && shardReport) {
        const result = counts.failed > 0 ? 'failed' : 'succeeded';
        const finishedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        const expected = { generation: facts.generation, storageVersion: facts.storageVersion };
        const recorded = await recordShardResult(api, send, options.record, shard, { ...expected, result, objects: counts.seen, finishedAt });
        if (!recorded.ok) return { ...haltOn(recorded.failure, recorded.what), storedVersionsAfter: unchanged };
        shardReport.recorded = result;
        shardReport.shards = judgeShards(recorded.data, shard.count, expected);
      }
      if (counts.failed > 0) return { outcome: 'failed', storedVersionsAfter: unchanged };
      if (!rewriteAll) return { outcome: managedFields.objectsMended > 0 ? 'mended' : 'nothing-to-do', storedVersionsAfter: unchanged };
      if (shardReport?.shards && !shardReport.shards.complete) return { outcome: 'shard-done', storedVersionsAfter: unchanged };
      return trimStoredVersions();
    }

    /** storedVersions := [S] through the status subresource, guarded by the CRD's resourceVersion. */
    async function trimStoredVersions(): Promise<Finish> {
      const unchanged = facts.storedVersions;
      for (let conflicts = 0; ; conflicts++) {
        const read = await send('read-crd', (signal) => api.request('GET', crdPath, { signal }), 'read the CRD');
        if (!read.ok) return { ...haltOn(read, `read the CRD ${options.resource}`), storedVersionsAfter: unchanged };
        const crd = read.value.body as { status?: Record<string, unknown> };
        let latest: StorageFacts;
        try {
          latest = readStorageFacts(crd);
        } catch (error) {
          if (!(error instanceof CrdShapeError)) throw error;
          return { outcome: 'crd-changed', problem: `the CRD changed during the run: ${error.message}`, storedVersionsAfter: unchanged };
        }
        if (latest.generation !== facts.generation || latest.storageVersion !== facts.storageVersion) {
          const problem = `the CRD changed during the run (generation ${facts.generation} -> ${latest.generation}, storage version ${facts.storageVersion} -> ${latest.storageVersion}); objects written before the change may be in another version`;
          return { outcome: 'crd-changed', problem, storedVersionsAfter: latest.storedVersions };
        }
        const body = { ...crd, status: { ...crd.status, storedVersions: [facts.storageVersion] } };
        const what = `update the status of the CRD ${options.resource}`;
        const written = await send('write-status', (signal) => api.request('PUT', `${crdPath}/status`, { body, query: { fieldManager: FIELD_MANAGER }, signal }), 'update the CRD status');
        if (written.ok) return { outcome: 'migrated', storedVersionsAfter: readStorageFacts(written.value.body).storedVersions };
        // Someone else wrote the CRD meanwhile: read it again and check again, never overwrite blindly.
        if (written.class === 'conflict' && conflicts < MAX_STATUS_CONFLICTS) continue;
        return { ...haltOn(written, what), storedVersionsAfter: unchanged };
      }
    }

    function count(outcome: 'rewritten' | 'current' | 'gone'): void {
      counts.seen++;
      counts[outcome]++;
    }

    function fail(object: ListedObject, code: number, message: string): void {
      counts.seen++;
      counts.failed++;
      if (failures.length < MAX_FAILURES_LISTED) failures.push({ ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}), name: object.metadata.name, code, message });
    }
  }

  async function readCrdForStart(): Promise<StorageFacts> {
    const read = await send('read-crd', (signal) => api.request('GET', crdPath, { signal }), 'read the CRD');
    if (!read.ok) throw startError(read);
    try {
      return readStorageFacts(read.value.body);
    } catch (error) {
      throw error instanceof CrdShapeError ? new MigrationConfigError(error.message) : error;
    }
  }

  /** Every request of the run: a token from the rate limiter, then the call, retried as retry-policy.ts decides. */
  function send(operation: Operation, call: (signal: AbortSignal) => Promise<KubeResponse>, what: string): Promise<Attempt<KubeResponse>> {
    return withRetries(
      async () => {
        await options.limiter.take(options.stop);
        return call(requests.signal);
      },
      { operation, policy: options.retry, sleep: options.sleep, signal: options.stop, onRetry: (error, delayMs) => options.onRetry?.(what, error, delayMs) },
    );
  }

  function writeQuery(): Record<string, string> {
    return { fieldManager: FIELD_MANAGER, ...(options.dryRun ? { dryRun: 'All' } : {}) };
  }

  /** Why the run stops, with the real cause: a failure that is neither an answer about one object nor retried. */
  function haltOn(failure: Failure, what: string): Halt {
    if (failure.class === 'interrupted') return { outcome: 'interrupted' };
    const cause = failure.class === 'stop' ? failure.cause : 'rejected';
    const error = 'error' in failure ? failure.error : undefined;
    return { outcome: 'aborted', cause, problem: describeStop(cause, what, error, api.server) };
  }

  function startError(failure: Failure): Error {
    if (failure.class === 'interrupted') return new MigrationInterruptedError(`stopped by a signal before the CRD ${options.resource} was read`);
    const error = 'error' in failure ? failure.error : undefined;
    if (error instanceof KubeApiError) {
      if (error.code === 404) return new MigrationConfigError(`no CustomResourceDefinition named ${options.resource} at ${api.server}`);
      if (error.code === 401) return new MigrationConfigError(`the API server at ${api.server} does not accept the credentials: ${error.message}`);
      if (error.code === 403) return new MigrationConfigError(`not allowed to read the CRD ${options.resource}: ${error.message}`);
      return new MigrationConfigError(`cannot read the CRD ${options.resource}: HTTP ${error.code}: ${error.message}`);
    }
    if (error instanceof KubeTransportError) return new MigrationConfigError(`cannot reach the API server at ${api.server}: ${error.message}`);
    return new MigrationConfigError(error instanceof KubeConfigurationError ? error.message : `cannot read the CRD ${options.resource}: ${describeError(error)}`);
  }
}

/** A signal for requests: aborted `graceMs` after `stop`, so that a write in flight may finish, but not for long. */
function abandonAfterStop(stop: AbortSignal, graceMs: number): { signal: AbortSignal; dispose(): void } {
  const abandon = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onStop = () => (timer = setTimeout(() => abandon.abort(), graceMs));
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return {
    signal: abandon.signal,
    dispose() {
      stop.removeEventListener('abort', onStop);
      clearTimeout(timer);
    },
  };
}

/** The report's `problem`: the cause first, in words an operator can act on, then the API server's own. */
export function describeStop(cause: StopCause, what: string, error: unknown, server: string): string {
  const detail = describeError(error);
  switch (cause) {
    case 'unauthorized':
      return `unauthorized: the API server at ${server} does not accept the credentials (${what}): ${detail}`;
    case 'forbidden':
      return `forbidden: the credentials in use may not ${what} (the Job's ServiceAccount needs the roles in manifests/migration/): ${detail}`;
    case 'unavailable':
      return `the API server kept failing: ${what}: ${detail}`;
    case 'rejected':
      return `the API server refused to ${what}: ${detail}`;
  }
}

/** The `code` of an object crdgate did not write, having found it would do harm (the message says why). */
const NOT_SENT = 0;

function unmendableThroughStatus(object: ListedObject, served: ReadonlySet<string>): string {
  const unserved = [...new Set((object.metadata.managedFields ?? []).map((entry) => entry.apiVersion ?? '(none)').filter((version) => !served.has(version)))];
  return (
    `not written: its managedFields name ${unserved.join(', ')}, no longer served; through the status subresource the API server ` +
    'would clear all of its managedFields (a subresource write cannot set them, and it cannot convert such an entry); migrate it without --via status'
  );
}

/** An object's place in a list: the list's order is its etcd keys' (`namespace/name`, or `name` cluster-wide). */
function listKey(object: ListedObject): string {
  return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name;
}

function resourceVersionOf(body: unknown): string | undefined {
  return (body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
}


function describeError(error: unknown): string {
  if (error instanceof KubeApiError) return `HTTP ${error.code}${error.reason ? ` ${error.reason}` : ''}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}
