import { abandonAfterStop } from '../abort/abandon-after-stop.ts';
import { namespacedName } from '../contract/values/kube-object.ts';
import type { KubeApi, KubeResponse } from '../kube/kube-api.ts';
import { buildReport, type Finish, type ShardRecorded } from './build-report.ts';
import { ChunkQueue } from './chunk-queue.ts';
import { storedVersionsTrimmed, type StorageFacts } from './custom-resource-definition.ts';
import { haltOn, type Halt } from './halt.ts';
import { createListProgress } from './list-progress.ts';
import {
  mendManagedFields,
  MIGRATE_FIELD_MANAGER,
  type ManagedFieldsEntry,
  type MendedManagedFields,
} from './managed-fields.ts';
import { MigrationConfigError, readCrdForStart, startProblem } from './migration-start.ts';
import type { MigrationReport, WriteVia } from './migration-report.ts';
import { Tally, type ObjectResult } from './object-tally.ts';
import type { ProgressSnapshot } from './progress-display.ts';
import type { RateLimiter } from './rate-limiter.ts';
import {
  withRetries,
  type Attempt,
  type Failure,
  type Operation,
  type RetryPolicy,
  type Sleep,
} from './retry-policy.ts';
import { tallyShards, recordShardResult, type RecordRef, type Send, type ShardTally } from './shard-record.ts';
import { inShard, wholeCollection, type Shard } from './shard.ts';
import { IN_FLIGHT_GRACE_MS } from './stop.ts';
import {
  NOT_A_DRY_RUN,
  StorageRulesTally,
  type JudgeObject,
  type ObjectRules,
  type RulesVerdict,
  type StorageRulesJudge,
} from './storage-rules.ts';
import { trimStoredVersions } from './trim-stored-versions.ts';

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
   * With --dry-run: judges each object, as listed, against the storage version's schema and rules as they stand
   * (storage-rules.ts), for the CRD the run read. Without it, the report says the rules were not checked.
   */
  storageRules?: StorageRulesJudge;
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

/**
 * 410s in a row with no page listed between them. A long list meets one every few compactions of etcd (every 5
 * minutes by default) and carries on; only 410s that bring no progress end the run.
 */
const MAX_LIST_RESTARTS = 5;
/** Someone else keeps writing the object between our read and our managedFields write. */
const MAX_MEND_CONFLICTS = 5;

interface ListedObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    managedFields?: ManagedFieldsEntry[];
  };
  [field: string]: unknown;
}

interface ListPage {
  items?: ListedObject[];
  metadata?: { continue?: string; remainingItemCount?: number };
}

const CURRENT: ObjectResult = { counted: 'current' };
const GONE: ObjectResult = { counted: 'gone' };

/** One page of the collection: its objects, the token to carry on from, and what the server says remains. */
interface Page {
  items: ListedObject[];
  next: string | undefined;
  remaining: number | undefined;
}

/**
 * The storage-version migration, top to bottom: read the CRD and check the options against it (migration-start.ts);
 * list the objects a chunk at a time and write each one back unchanged, so the API server stores it in the storage
 * version; then, only if every object made it and the CRD did not change meanwhile, trim status.storedVersions to the
 * storage version (trim-stored-versions.ts). Every failed request is classified once (retry-policy.ts) and acted on
 * by its class (class Migration).
 */
export async function runMigration(api: KubeApi, options: MigrationOptions): Promise<MigrationReport> {
  const now = options.now ?? (() => performance.now());
  const startedAt = now();
  const requests = abandonAfterStop(options.stop, options.inFlightGraceMs ?? IN_FLIGHT_GRACE_MS);
  try {
    const send = sender(options, requests.signal);
    const { facts, crd } = await readCrdForStart(api, options.resource, send);
    const problem = startProblem(options, facts);
    if (problem !== undefined) throw new MigrationConfigError(problem);
    const rules = storageRulesJudge(options, crd);
    return await new Migration(api, options, send, facts, rules, { now, startedAt }).run();
  } finally {
    requests.dispose();
  }
}

/**
 * Who judges the objects against the storage version's rules, for a dry run given a judge whose engine is there;
 * otherwise why nobody does.
 */
function storageRulesJudge(options: MigrationOptions, crd: unknown): ObjectRules {
  if (!options.dryRun) return { notChecked: NOT_A_DRY_RUN };
  if (options.storageRules === undefined) return { notChecked: 'no judge of the rules was given to the run' };
  return options.storageRules(crd);
}

/**
 * One run, once the CRD is read. Its methods return what they decided (a page, an object's count, a halt, a
 * verdict on the rules, the outcome); the tallies add up what the object writes and the verdicts returned, and are
 * the only things the workers share.
 */
class Migration {
  private readonly api: KubeApi;
  private readonly options: MigrationOptions;
  private readonly send: Send;
  private readonly facts: StorageFacts;
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly shard: Shard;
  private readonly via: WriteVia;
  private readonly storageApiVersion: string;
  /** storedVersions names another version: every object is written; otherwise only those whose managedFields need mending. */
  private readonly rewriteAll: boolean;
  private readonly tally = new Tally();
  private readonly listProgress = createListProgress();
  private readonly judgeObject: JudgeObject | undefined;
  private readonly rules: StorageRulesTally;

  constructor(
    api: KubeApi,
    options: MigrationOptions,
    send: Send,
    facts: StorageFacts,
    rules: ObjectRules,
    clock: { now: () => number; startedAt: number },
  ) {
    this.api = api;
    this.options = options;
    this.send = send;
    this.facts = facts;
    this.now = clock.now;
    this.startedAt = clock.startedAt;
    this.shard = options.shard ?? wholeCollection;
    this.via = options.via ?? 'object';
    this.storageApiVersion = `${facts.group}/${facts.storageVersion}`;
    this.rewriteAll = !storedVersionsTrimmed(facts);
    this.judgeObject = 'judge' in rules ? rules.judge : undefined;
    this.rules = new StorageRulesTally('notChecked' in rules ? rules.notChecked : undefined);
  }

  async run(): Promise<MigrationReport> {
    const halt = await this.migrateCollection();
    const finish = await this.finish(halt);
    return this.report(finish);
  }

  /**
   * List a chunk, migrate it, carry on from its token, until the last page, a halt or a stop request.
   *
   * `doneUpTo` is the last object of the last chunk done. Lists come in key order (namespace/name: continue tokens
   * are keys), so a list started again from the beginning after a 410 skips everything up to it: nothing is written
   * or counted twice, and what the run keeps in memory is a chunk, not a set of every object seen. An object created
   * since that sorts before it needs no write: it was stored in the storage version when it was created.
   */
  private async migrateCollection(): Promise<Halt | undefined> {
    const { stop } = this.options;
    let token: string | undefined;
    let doneUpTo: string | undefined;
    let expiredInARow = 0;
    while (!stop.aborted) {
      const page = await this.listPage(token);
      if ('class' in page) {
        if (page.class !== 'expired' || expiredInARow >= MAX_LIST_RESTARTS)
          return haltOn(page, `list ${this.options.resource}`, this.api.server);
        // The continue token expired (etcd compacted past it): carry on from the token the server offers, or list
        // again from the start; objects already handled are skipped, so none is written or counted twice.
        expiredInARow++;
        token = page.continueToken;
        if (!token) this.listProgress.restart();
        continue;
      }
      expiredInARow = 0;
      token = page.next;
      this.listProgress.page(page.items.length, page.remaining, token !== undefined);
      const halt = await this.migrateChunk(
        page.items.filter((item) => doneUpTo === undefined || listKey(item) > doneUpTo),
      );
      if (halt) return halt;
      const last = page.items.at(-1);
      // Never backwards: the first pages of a list started again end before what the first pass did.
      if (!stop.aborted && last && (doneUpTo === undefined || listKey(last) > doneUpTo)) doneUpTo = listKey(last);
      if (!token) break;
    }
    return stop.aborted ? { outcome: 'interrupted' } : undefined;
  }

  /** One page of the collection from `token`, or the request's failure. */
  private async listPage(token: string | undefined): Promise<Page | Failure> {
    const query = { limit: String(this.options.chunkSize), ...(token ? { continue: token } : {}) };
    const answer = await this.send(
      'list',
      (signal) => this.api.request('GET', this.collectionPath(), { query, signal }),
      `list ${this.options.resource}`,
    );
    if (!answer.ok) return answer;
    const body = (answer.value.body ?? {}) as ListPage;
    return {
      items: body.items ?? [],
      next: body.metadata?.continue || undefined,
      remaining: body.metadata?.remainingItemCount,
    };
  }

  /**
   * A chunk's objects (those past what earlier chunks did) through `concurrency` workers; the first halt or a stop
   * request ends it after the writes in flight. A crash (a bug, not an API failure) stops the other workers too,
   * then propagates.
   */
  private async migrateChunk(items: ListedObject[]): Promise<Halt | undefined> {
    const queue = new ChunkQueue(items);
    const workers = Array.from({ length: Math.min(this.options.concurrency, items.length) }, () => this.worker(queue));
    const ends = await Promise.allSettled(workers);
    const crash = ends.find((end) => end.status === 'rejected');
    if (crash) throw crash.reason;
    return queue.halt;
  }

  /** Takes the chunk's objects one at a time and migrates those of this shard, until the queue ends. */
  private async worker(queue: ChunkQueue<ListedObject>): Promise<void> {
    for (let item = queue.take(this.options.stop); item; item = queue.take(this.options.stop)) {
      this.tally.listed++;
      if (inShard(item.metadata, this.shard)) {
        // Judged as it is taken, before any await: the objects that break the rules are kept in list order.
        const verdict = this.judgeRules(item);
        if (verdict) this.rules.add(item.metadata, verdict);
        let result: ObjectResult;
        try {
          result = await this.migrateObject(item);
        } catch (error) {
          queue.end();
          throw error;
        }
        this.tally.add(result);
        if ('halt' in result) queue.end(result.halt);
      }
      this.reportProgress();
    }
  }

  private reportProgress(): void {
    const own = this.shard.count > 1 ? { own: this.tally.counts.seen } : {};
    this.options.onProgress?.({
      done: this.tally.listed,
      total: this.listProgress.total,
      elapsedMs: this.now() - this.startedAt,
      ...own,
    });
  }

  /**
   * One object as listed, in the storage version, against that version's schema and rules as they stand. The
   * judgement is information: an engine that fails on it ends the judging, never the migration. Nothing once the
   * judging has ended, or when there is no judge.
   */
  private judgeRules(item: ListedObject): RulesVerdict | undefined {
    if (this.judgeObject === undefined || !this.rules.judging) return undefined;
    try {
      return { causes: this.judgeObject(item) };
    } catch (error) {
      return { notJudged: error instanceof Error ? error.message : String(error) };
    }
  }

  /** One object: write it back as listed (managedFields mended), and count what the API server said. */
  private async migrateObject(item: ListedObject): Promise<ObjectResult> {
    const mend = this.mend(item);
    if (!this.rewriteAll && !mend) return CURRENT;
    return this.writeBack(item, mend, 0);
  }

  private async writeBack(
    object: ListedObject,
    mend: MendedManagedFields | undefined,
    conflicts: number,
  ): Promise<ObjectResult> {
    // A subresource write cannot set managedFields, and the API server, unable to convert an entry of a version it no
    // longer serves, clears every entry of the object instead: better not written than stripped of them.
    if (mend && this.via === 'status')
      return failed(object, NOT_SENT, unmendableThroughStatus(object, this.facts.servedApiVersions));
    const body = mend ? { ...object, metadata: { ...object.metadata, managedFields: mend.entries } } : object;
    const what = `rewrite ${namespacedName(object.metadata)}${this.via === 'status' ? ' through its status subresource' : ''}`;
    const path = this.via === 'status' ? `${this.objectPath(object)}/status` : this.objectPath(object);
    const written = await this.send(
      'write-object',
      (signal) => this.api.request('PUT', path, { query: this.writeQuery(), body, signal }),
      what,
    );
    if (written.ok) {
      // The API server skips a write whose bytes equal what is stored: the same resourceVersion means the object was
      // already stored in the storage version. A dry run never writes, so it cannot tell.
      const unchanged =
        !this.options.dryRun && resourceVersionOf(written.value.body) === object.metadata.resourceVersion;
      return { counted: unchanged ? 'current' : 'rewritten', ...(mend ? { mended: mend } : {}) };
    }
    switch (written.class) {
      case 'gone':
        return GONE;
      case 'refused':
        return failed(object, written.error.code, written.error.message);
      case 'conflict':
        // Written by someone else since we listed it, so already stored in the storage version. Their write kept the
        // old managedFields, though: read it again and mend those.
        return mend ? this.mendAgain(object, conflicts) : CURRENT;
      default:
        // This object is not done; the run stops taking others.
        return { halt: haltOn(written, what, this.api.server) };
    }
  }

  private async mendAgain(object: ListedObject, conflicts: number): Promise<ObjectResult> {
    if (conflicts >= MAX_MEND_CONFLICTS)
      return failed(object, 409, `still changing after ${conflicts} attempts to mend its managedFields`);
    const fresh = await this.readObject(object);
    if (fresh === 'gone') return GONE;
    if (!('metadata' in fresh))
      return { halt: haltOn(fresh, `read ${namespacedName(object.metadata)}`, this.api.server) };
    const mend = this.mend(fresh);
    return mend ? this.writeBack(fresh, mend, conflicts + 1) : CURRENT;
  }

  /** A fresh copy through a list by name: the job's RBAC then needs list and update on objects, not get. */
  private async readObject(object: ListedObject): Promise<ListedObject | 'gone' | Failure> {
    const query = { fieldSelector: `metadata.name=${object.metadata.name}` };
    const path = this.collectionPath(object.metadata.namespace);
    const page = await this.send(
      'list',
      (signal) => this.api.request('GET', path, { query, signal }),
      `read ${namespacedName(object.metadata)}`,
    );
    if (!page.ok) return page;
    return ((page.value.body as ListPage | undefined)?.items ?? [])[0] ?? 'gone';
  }

  /**
   * After the objects: decide the outcome, and trim storedVersions only when everything is in order. A shard first
   * records its result, then trims only if the record shows every shard succeeded for this generation and storage
   * version. A run that stopped early records nothing: its key keeps what an earlier run of the index wrote.
   */
  private async finish(halt: Halt | undefined): Promise<Finish> {
    const unchanged = this.facts.storedVersions;
    if (halt) return { ...halt, storedVersionsAfter: unchanged };
    if (this.options.dryRun)
      return { outcome: this.tally.counts.failed > 0 ? 'failed' : 'dry-run', storedVersionsAfter: unchanged };
    let recorded: ShardRecorded | undefined;
    if (this.options.record) {
      const record = await this.recordShard(this.options.record);
      if ('outcome' in record) return { ...record, storedVersionsAfter: unchanged };
      recorded = record;
    }
    return { ...(await this.decideStoredVersions(recorded?.shards)), ...(recorded ? { recorded } : {}) };
  }

  /** With every object done (and a shard's result recorded): trim storedVersions, or say why it is left as it is. */
  private async decideStoredVersions(shards: ShardTally | undefined): Promise<Finish> {
    const unchanged = this.facts.storedVersions;
    const { counts, managedFields } = this.tally;
    if (counts.failed > 0) return { outcome: 'failed', storedVersionsAfter: unchanged };
    if (!this.rewriteAll)
      return { outcome: managedFields.objectsMended > 0 ? 'mended' : 'nothing-to-do', storedVersionsAfter: unchanged };
    if (shards && !shards.complete) return { outcome: 'shard-done', storedVersionsAfter: unchanged };
    return trimStoredVersions(this.api, this.send, this.options.resource, this.facts);
  }

  /** Writes this shard's result to the record; what the record then says of every shard, or why it could not. */
  private async recordShard(record: RecordRef): Promise<ShardRecorded | Halt> {
    const result = this.tally.counts.failed > 0 ? 'failed' : 'succeeded';
    const finishedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const expected = { generation: this.facts.generation, storageVersion: this.facts.storageVersion };
    const written = await recordShardResult(this.api, this.send, record, this.shard, {
      ...expected,
      result,
      objects: this.tally.counts.seen,
      finishedAt,
    });
    if (!written.ok) return haltOn(written.failure, written.what, this.api.server);
    return { recorded: result, shards: tallyShards(written.data, this.shard.count, expected) };
  }

  private report(finish: Finish): MigrationReport {
    const { options } = this;
    const sharded = options.shard !== undefined || options.record !== undefined;
    const shard = { ...this.shard, ...(options.record ? { record: options.record } : {}) };
    const run = {
      resource: options.resource,
      server: this.api.server,
      dryRun: options.dryRun,
      via: this.via,
      facts: this.facts,
      ...(sharded ? { shard } : {}),
      durationSeconds: (this.now() - this.startedAt) / 1000,
    };
    return buildReport(run, this.tally, finish, this.rules.report());
  }

  private mend(object: ListedObject): MendedManagedFields | undefined {
    return mendManagedFields(object.metadata.managedFields, this.facts.servedApiVersions, this.storageApiVersion);
  }

  private collectionPath(namespace?: string): string {
    const { facts } = this;
    const scope = facts.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `/apis/${facts.group}/${facts.storageVersion}${scope}/${facts.plural}`;
  }

  private objectPath(object: ListedObject): string {
    return `${this.collectionPath(object.metadata.namespace)}/${encodeURIComponent(object.metadata.name)}`;
  }

  private writeQuery(): Record<string, string> {
    return { fieldManager: MIGRATE_FIELD_MANAGER, ...(this.options.dryRun ? { dryRun: 'All' } : {}) };
  }
}

function failed(object: ListedObject, code: number, message: string): ObjectResult {
  return {
    counted: 'failed',
    failure: {
      ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
      name: object.metadata.name,
      code,
      message,
    },
  };
}

/** Every request of the run: a token from the rate limiter, then the call, retried as retry-policy.ts decides. */
function sender(options: MigrationOptions, requestSignal: AbortSignal): Send {
  return (
    operation: Operation,
    call: (signal: AbortSignal) => Promise<KubeResponse>,
    what: string,
  ): Promise<Attempt<KubeResponse>> =>
    withRetries(
      async () => {
        await options.limiter.take(options.stop);
        return call(requestSignal);
      },
      {
        operation,
        policy: options.retry,
        sleep: options.sleep,
        signal: options.stop,
        onRetry: (error, delayMs) => options.onRetry?.(what, error, delayMs),
      },
    );
}

/** The `code` of an object crdgate did not write, having found it would do harm (the message says why). */
const NOT_SENT = 0;

function unmendableThroughStatus(object: ListedObject, served: ReadonlySet<string>): string {
  const unserved = [
    ...new Set(
      (object.metadata.managedFields ?? [])
        .map((entry) => entry.apiVersion ?? '(none)')
        .filter((version) => !served.has(version)),
    ),
  ];
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
