import type { StopCause } from './retry-policy.ts';
import { namespacedName } from '../contract/kube-object.ts';

/** What a migration run did, object by object counted, for the summary, the JSON report and the exit code. */
export interface MigrationReport {
  /** PLURAL.GROUP */
  resource: string;
  server: string;
  storageVersion: string;
  dryRun: boolean;
  storedVersions: { before: string[]; after: string[] };
  outcome: MigrationOutcome;
  /** With outcome `aborted`: why the run could not go on (the details, the API server's message among them, in `problem`). */
  cause?: StopCause;
  objects: ObjectCounts;
  managedFields: { objectsMended: number; entriesDropped: number };
  /** Objects the API server refused to rewrite, with its message. */
  failures: ObjectFailure[];
  /** Why the run stopped early or left storedVersions alone, when it did. */
  problem?: string;
  durationSeconds: number;
  objectsPerSecond: number;
}

export type MigrationOutcome =
  /** Every object is stored in the storage version and storedVersions was trimmed to it. */
  | 'migrated'
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
  /** The API server's HTTP status. */
  code: number;
  message: string;
}

/** 0: done; 1: objects failed or the run could not finish (storedVersions untouched); 3: stopped by a signal. */
export function exitCodeOf(report: MigrationReport): number {
  switch (report.outcome) {
    case 'migrated':
    case 'nothing-to-do':
    case 'mended':
    case 'dry-run':
      return 0;
    case 'interrupted':
      return 3;
    default:
      return 1;
  }
}


/** The summary a person reads at the end of a run, in a terminal or a Job's log. */
export function renderSummary(report: MigrationReport): string {
  const lines = [
    `${headline(report)}`,
    `  resource          ${report.resource} (storage version ${report.storageVersion}) at ${report.server}`,
    `  objects           ${report.objects.seen} seen: ${describeWrites(report)}, ${report.objects.gone} gone, ${report.objects.failed} failed`,
    `  managedFields     ${report.managedFields.entriesDropped} entries in versions no longer served dropped from ${report.managedFields.objectsMended} objects${report.dryRun ? ' (dry run: not written)' : ''}`,
    `  storedVersions    ${describeStoredVersions(report)}`,
    `  duration          ${report.durationSeconds.toFixed(1)} s, ${report.objectsPerSecond.toFixed(1)} objects/s`,
  ];
  if (report.problem) lines.push(`  problem           ${report.problem}`);
  if (report.failures.length > 0) {
    lines.push(`  failed objects (${report.failures.length}):`);
    for (const failure of report.failures) lines.push(`    ${namespacedName(failure)}: HTTP ${failure.code}: ${failure.message}`);
  }
  return `${lines.join('\n')}\n`;
}

function headline(report: MigrationReport): string {
  switch (report.outcome) {
    case 'migrated':
      return `migrated: every ${report.resource} object is stored in ${report.storageVersion}`;
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
  return before === after ? `${after} (unchanged)` : `${before} -> ${after}`;
}
