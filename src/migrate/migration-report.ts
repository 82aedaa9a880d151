import type { StopCause } from './retry-policy.ts';
import { describeWaiting, type ShardTally } from './shard-record.ts';
import { namespacedName } from '../contract/values/kube-object.ts';
import type { CommandAnswer } from '../errors.ts';

/** What a migration run did, object by object counted, for the summary, the JSON report and the exit code. */
export interface MigrationReport {
  /** PLURAL.GROUP */
  resource: string;
  server: string;
  storageVersion: string;
  /** The CRD's metadata.generation when the run started. */
  generation: number;
  dryRun: boolean;
  /** How objects were written: `object` (PUT of the object) or `status` (PUT of its status subresource). */
  via: WriteVia;
  storedVersions: {
    before: string[];
    after: string[];
    /** Why storedVersions was trimmed or left alone, in words. */
    why: string;
  };
  outcome: MigrationOutcome;
  /** With --shard: which objects were this run's, and what the shards' record said. */
  shard?: ShardReport;
  /** With outcome `aborted`: why the run could not go on (the details, the API server's message among them, in `problem`). */
  cause?: StopCause;
  objects: ObjectCounts;
  managedFields: { objectsMended: number; entriesDropped: number };
  /** Objects the API server refused to rewrite, with its message: the first MAX_FAILURES_LISTED (objects.failed counts them all). */
  failures: ObjectFailure[];
  /** Why the run stopped early or left storedVersions alone, when it did. */
  problem?: string;
  /**
   * The dry run's judgement of each object, as listed in the storage version, against that version's schema and
   * rules as they stand (a real run judges nothing: `checked` false, and `notChecked` says so).
   */
  storageRules: StorageRulesReport;
  durationSeconds: number;
  objectsPerSecond: number;
}

export type WriteVia = 'object' | 'status';

/** A webhook that refuses every write of a million objects must not fill the memory or the log with them. */
export const MAX_FAILURES_LISTED = 1_000;

export interface ShardReport {
  index: number;
  count: number;
  /** NAMESPACE/NAME of the ConfigMap where the shards record their results (--record). */
  record?: string;
  /** Objects the lists returned, this shard's and the others'; `objects` counts this shard's alone. */
  listed: number;
  /** What this shard wrote to the record; absent when it wrote nothing (a dry run, a run that stopped early). */
  recorded?: 'succeeded' | 'failed';
  /** What the record said of every shard right after this one wrote its result. */
  shards?: ShardTally;
}

export type MigrationOutcome =
  /** Every object is stored in the storage version and storedVersions was trimmed to it. */
  | 'migrated'
  /**
   * --shard: every object of this shard is stored in the storage version and its success is recorded; storedVersions
   * waits until every shard has succeeded (shard.shards says which have not). This shard's part is done: exit 0.
   */
  | 'shard-done'
  /** storedVersions already named only the storage version and no managedFields entry needed mending. */
  | 'nothing-to-do'
  /** storedVersions already named only the storage version; managedFields entries were mended. */
  | 'mended'
  /** --dry-run: every write was sent with dryRun=All and none would fail. */
  | 'dry-run'
  /** Some objects were refused (listed in failures); storedVersions left alone. */
  | 'failed'
  /** The run could not go on (see `cause`: unauthorized, forbidden, the API server kept failing, a refused request); storedVersions left alone. */
  | 'aborted'
  /** The CRD's generation or storage version changed during the run; storedVersions left alone. */
  | 'crd-changed'
  /** Stopped by a signal; the writes in flight were finished; storedVersions left alone. */
  | 'interrupted';

export interface ObjectCounts {
  /** Objects the run looked at. */
  seen: number;
  /** Written again, now stored in the storage version (with --dry-run: would be). */
  rewritten: number;
  /** Already stored in the storage version: the no-op write changed nothing, or another writer got there first. */
  current: number;
  /** Deleted between the list and the write. */
  gone: number;
  failed: number;
}

export interface ObjectFailure {
  namespace?: string;
  name: string;
  /** The API server's HTTP status; 0 when crdgate did not send the write (the message says why). */
  code: number;
  message: string;
}

/**
 * The objects that break the storage version's schema or rules as they stand. Such an object migrates: a write that
 * leaves a field as it is passes the API server's validation ratcheting. But any write that changes that field is
 * refused until the field is fixed. Information, never a failure of the run.
 */
export type StorageRulesReport = StorageRulesCounts &
  (
    | { checked: true }
    /** Not every object the run looked at was judged: why (no engine, not a dry run, the engine failed). */
    | { checked: false; notChecked: string }
  );

export interface StorageRulesCounts {
  /** Objects judged. */
  judged: number;
  /** Objects judged that break the rules, every one counted. */
  breaking: number;
  /** The first MAX_BROKEN_LISTED of them, in list order. */
  objects: BrokenObject[];
}

export interface BrokenObject {
  namespace?: string;
  name: string;
  /** The first MAX_CAUSES_LISTED fields refused, in field order, as the API server words them. */
  causes: RuleCause[];
  /** Causes past those listed. */
  moreCauses: number;
}

/** One field the rules refuse: the API server's field path and message (`Invalid value: 20: spec.size in body ...`). */
export interface RuleCause {
  /** `spec.size`; the empty string for the object as a whole. */
  field: string;
  message: string;
}

/**
 * What the run answers, as a code of the catalog (cli.ts turns it into the exit status): DONE (with --shard: this
 * shard's part), NO when objects failed or the run could not finish (storedVersions untouched), and
 * MIGRATION_INTERRUPTED when a signal stopped it, as when the stop comes before the CRD is read.
 */
export function migrationAnswer(report: MigrationReport): CommandAnswer | 'MIGRATION_INTERRUPTED' {
  switch (report.outcome) {
    case 'migrated':
    case 'shard-done':
    case 'nothing-to-do':
    case 'mended':
    case 'dry-run':
      return 'DONE';
    case 'interrupted':
      return 'MIGRATION_INTERRUPTED';
    case 'failed':
    case 'aborted':
    case 'crd-changed':
      return 'NO';
  }
}

/** The summary a person reads at the end of a run, in a terminal or a Job's log. */
export function renderSummary(report: MigrationReport): string {
  const lines = [
    `${headline(report)}`,
    `  resource          ${report.resource} (storage version ${report.storageVersion}, generation ${report.generation}) at ${report.server}`,
    ...(report.shard ? [`  shard             ${describeShardLine(report, report.shard)}`] : []),
    `  objects           ${report.objects.seen} seen: ${describeWrites(report)}, ${report.objects.gone} gone, ${report.objects.failed} failed${report.via === 'status' ? ' (written through the status subresource)' : ''}`,
    `  managedFields     ${report.managedFields.entriesDropped} entries in versions no longer served dropped from ${report.managedFields.objectsMended} objects${report.dryRun ? ' (dry run: not written)' : ''}`,
    `  storedVersions    ${describeStoredVersions(report)}`,
    ...storageRulesLine(report),
    `  duration          ${report.durationSeconds.toFixed(1)} s, ${report.objectsPerSecond.toFixed(1)} objects/s`,
  ];
  if (report.problem) lines.push(`  problem           ${report.problem}`);
  if (report.failures.length > 0) {
    const unlisted = report.objects.failed - report.failures.length;
    lines.push(
      `  failed objects (${report.objects.failed}${unlisted > 0 ? `, the first ${report.failures.length} listed` : ''}):`,
    );
    for (const failure of report.failures)
      lines.push(
        `    ${namespacedName(failure)}: ${failure.code > 0 ? `HTTP ${failure.code}: ` : ''}${failure.message}`,
      );
    if (unlisted > 0) lines.push(`    ... and ${unlisted} more`);
  }
  lines.push(...brokenObjectLines(report));
  return `${lines.join('\n')}\n`;
}

/**
 * What the judgement of the objects against the storage version's rules came to, on one line (a dry run's, or a
 * run's that judged them). What an object that breaks them means is said there once: it migrates, but an edit of
 * the field is refused.
 */
function storageRulesLine(report: MigrationReport): string[] {
  const rules = report.storageRules;
  const version = report.storageVersion;
  if (!report.dryRun && !rules.checked) return [];
  if (!rules.checked) return [`  storage rules     not checked: ${rules.notChecked}`];
  if (rules.breaking === 0)
    return [
      `  storage rules     the ${rules.judged} objects judged all meet ${version}'s schema and rules as they stand`,
    ];
  return [
    `  storage rules     ${rules.breaking} of the ${rules.judged} objects judged break ${version}'s schema or rules as they stand: ` +
      "each migrates (a write that leaves a field as it is passes the API server's ratcheting), but any write that " +
      'changes such a field is refused until it is fixed (listed below)',
  ];
}

/** The objects that break the storage version's rules, each cause (field: the API server's message) on a line. */
function brokenObjectLines(report: MigrationReport): string[] {
  const rules = report.storageRules;
  if (rules.breaking === 0) return [];
  const unlisted = rules.breaking - rules.objects.length;
  const lines = [
    `  objects breaking ${report.storageVersion}'s rules (${rules.breaking}${unlisted > 0 ? `, the first ${rules.objects.length} listed` : ''}):`,
  ];
  for (const object of rules.objects) {
    lines.push(`    ${namespacedName(object)}:`);
    for (const cause of object.causes)
      lines.push(`      ${cause.field === '' ? '' : `${cause.field}: `}${cause.message}`);
    if (object.moreCauses > 0) lines.push(`      ... and ${object.moreCauses} more`);
  }
  if (unlisted > 0) lines.push(`    ... and ${unlisted} more`);
  return lines;
}

function headline(report: MigrationReport): string {
  switch (report.outcome) {
    case 'migrated':
      return `migrated: every ${report.resource} object is stored in ${report.storageVersion}`;
    case 'shard-done':
      return `shard ${report.shard!.index}/${report.shard!.count} done: its objects are stored in ${report.storageVersion}; storedVersions left as it was until every shard has succeeded`;
    case 'nothing-to-do':
      return `nothing to do: storedVersions is already [${report.storageVersion}] and no managedFields entry names a version that is not served`;
    case 'mended':
      return `mended: storedVersions was already [${report.storageVersion}]; managedFields entries in versions no longer served were dropped`;
    case 'dry-run':
      return `dry run: every object would be written in ${report.storageVersion}; nothing was written`;
    case 'failed':
      return `${report.dryRun ? 'dry run: ' : ''}${report.objects.failed} object(s) ${report.dryRun ? 'would be' : 'were'} refused; storedVersions left as it was`;
    case 'aborted':
      return `aborted: ${describeCause(report.cause)}; storedVersions left as it was (see the problem below, then run again to finish)`;
    case 'crd-changed':
      return 'not finished: the CRD changed during the run; storedVersions left as it was (run again)';
    case 'interrupted':
      return 'interrupted: stopped by a signal after the writes in flight; storedVersions left as it was (run again to finish)';
  }
}

function describeCause(cause: StopCause | undefined): string {
  switch (cause) {
    case 'unauthorized':
      return 'unauthorized: the API server does not accept the credentials';
    case 'forbidden':
      return 'forbidden: the credentials may not do something the run needs';
    case 'rejected':
      return 'the API server refused a request the run needs';
    case 'unavailable':
    case undefined:
      return 'the API server kept failing';
  }
}

/**
 * A dry-run write persists nothing, so its resourceVersion never moves: it cannot tell an object already stored in the
 * storage version from one the real run would rewrite, and says so rather than count every object as rewritten.
 */
function describeWrites(report: MigrationReport): string {
  if (report.dryRun) {
    return `${report.objects.rewritten} would be written (a dry run cannot tell which are already stored in ${report.storageVersion}: it persists nothing, so no resourceVersion moves)`;
  }
  return `${report.objects.rewritten} rewritten, ${report.objects.current} already current`;
}

function describeStoredVersions(report: MigrationReport): string {
  const before = `[${report.storedVersions.before.join(', ')}]`;
  const after = `[${report.storedVersions.after.join(', ')}]`;
  return `${before === after ? `${after} (unchanged)` : `${before} -> ${after}`}: ${report.storedVersions.why}`;
}

function describeShardLine(report: MigrationReport, shard: ShardReport): string {
  const recorded = !shard.record
    ? 'no record (--record)'
    : shard.recorded
      ? `recorded "${shard.recorded}" in the ConfigMap ${shard.record}`
      : `nothing recorded in the ConfigMap ${shard.record}`;
  return `${shard.index}/${shard.count} by namespace/name hash: ${report.objects.seen} of the ${shard.listed} objects listed are its own; ${recorded}`;
}

/**
 * Why storedVersions was trimmed or left alone: for a shard, whether every shard's result is in and which are
 * not, since that is what an operator acts on.
 */
export function explainStoredVersions(
  report: Omit<MigrationReport, 'storedVersions'> & { storedVersions: { before: string[]; after: string[] } },
): string {
  const shards = report.shard?.shards;
  const expected = { generation: report.generation, storageVersion: report.storageVersion };
  const sharded = report.shard !== undefined && report.shard.count > 1;
  switch (report.outcome) {
    case 'migrated':
      return sharded
        ? `trimmed: every shard (${report.shard!.count}) succeeded for generation ${report.generation}, storage version ${report.storageVersion}`
        : `trimmed: every object is stored in ${report.storageVersion}`;
    case 'shard-done':
      return `not trimmed: ${shards ? describeWaiting(shards, expected) : 'the other shards have not all succeeded'}`;
    case 'nothing-to-do':
    case 'mended':
      return `already [${report.storageVersion}] alone`;
    case 'dry-run':
      return 'not trimmed: a dry run writes nothing';
    case 'failed':
      return `not trimmed: ${report.objects.failed} object(s) ${report.dryRun ? 'would be' : 'were'} refused${sharded && report.shard?.recorded ? ` (this shard recorded "failed")` : ''}`;
    case 'aborted':
      return 'not trimmed: the run could not finish (see the problem)';
    case 'crd-changed':
      return 'not trimmed: the CRD changed during the run';
    case 'interrupted':
      return 'not trimmed: stopped by a signal';
  }
}
