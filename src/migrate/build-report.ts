import type { StorageFacts } from './custom-resource-definition.ts';
import {
  explainStoredVersions,
  type MigrationOutcome,
  type MigrationReport,
  type ShardReport,
  type StorageRulesReport,
  type WriteVia,
} from './migration-report.ts';
import type { Tally } from './object-tally.ts';
import type { StopCause } from './retry-policy.ts';
import { describeRecord, type RecordRef, type ShardTally } from './shard-record.ts';
import type { Shard } from './shard.ts';

/** How the run ended: its outcome, why when it stopped early, and storedVersions as it left it. */
export interface Finish {
  outcome: MigrationOutcome;
  cause?: StopCause;
  problem?: string;
  storedVersionsAfter: string[];
  recorded?: ShardRecorded;
}

/** What this shard wrote to the record, and what the record then said of every shard. */
export interface ShardRecorded {
  recorded: 'succeeded' | 'failed';
  shards: ShardTally;
}

/** What the report says of the run besides its objects: what was asked, of which CRD, and how long it took. */
export interface ReportedRun {
  resource: string;
  server: string;
  dryRun: boolean;
  via: WriteVia;
  /** The CRD as the run started. */
  facts: StorageFacts;
  /** Given with --shard or --record: the shard this run was, and the record it wrote to. */
  shard?: Shard & { record?: RecordRef };
  durationSeconds: number;
}

/**
 * The report of a run from what it was, what its objects came to, what the judgement of them against the storage
 * version's rules came to, and how it ended.
 */
export function buildReport(
  run: ReportedRun,
  tally: Tally,
  finish: Finish,
  storageRules: StorageRulesReport,
): MigrationReport {
  const { facts, durationSeconds } = run;
  const { outcome, cause, problem, storedVersionsAfter, recorded } = finish;
  const shard: ShardReport | undefined = run.shard
    ? {
        index: run.shard.index,
        count: run.shard.count,
        ...(run.shard.record ? { record: describeRecord(run.shard.record) } : {}),
        listed: tally.listed,
        ...recorded,
      }
    : undefined;
  const report: Omit<MigrationReport, 'storedVersions'> & { storedVersions: { before: string[]; after: string[] } } = {
    resource: run.resource,
    server: run.server,
    storageVersion: facts.storageVersion,
    generation: facts.generation,
    dryRun: run.dryRun,
    via: run.via,
    storedVersions: { before: facts.storedVersions, after: storedVersionsAfter },
    outcome,
    ...(cause ? { cause } : {}),
    ...(shard ? { shard } : {}),
    objects: tally.counts,
    managedFields: tally.managedFields,
    failures: tally.failures,
    ...(problem ? { problem } : {}),
    storageRules,
    durationSeconds,
    objectsPerSecond: durationSeconds > 0 ? tally.counts.seen / durationSeconds : 0,
  };
  return { ...report, storedVersions: { ...report.storedVersions, why: explainStoredVersions(report) } };
}
