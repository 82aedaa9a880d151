import { createKubeApi, KubeApiError } from '../kube/kube-api.ts';
import { KubeconfigError } from '../kube/kubeconfig-error.ts';
import { migrationAnswer, renderSummary } from '../migrate/migration-report.ts';
import { createProgressDisplay } from '../migrate/progress-display.ts';
import { createRateLimiter } from '../migrate/rate-limiter.ts';
import { defaultRetryPolicy, realSleep } from '../migrate/retry-policy.ts';
import { MigrationConfigError, MigrationInterruptedError } from '../migrate/migration-start.ts';
import { runMigration } from '../migrate/run-migration.ts';
import { missingRecordProblem, parseRecordRef, RecordFormatError, type RecordRef } from '../migrate/shard-record.ts';
import { parseShard, ShardFormatError, type Shard } from '../migrate/shard.ts';
import { MIGRATE_STOP_BOUND_SECONDS } from '../migrate/stop.ts';
import { positiveInteger, positiveNumber, requiredString, stringOption, UsageError, type Command } from './command.ts';
import { apiServerAccessFromFlags } from './kube-options.ts';
import { engineStorageRules } from './migrate-storage-rules.ts';
import { CommandError, commandAnswers } from '../errors.ts';
import { isDns1123Subdomain } from '../contract/values/dns-names.ts';

/** Defaults for a busy production cluster: a few writers, well under the API server's own fairness limits. */
export const migrateDefaults = {
  concurrency: 4,
  chunkSize: 500,
  qps: 50,
  retries: 6,
  requestTimeoutSeconds: 30,
} as const;

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "rewrite every stored object in the CRD's storage version, then trim status.storedVersions",
  usage: `crdgate migrate --resource PLURAL.GROUP [--kubeconfig FILE] [--context NAME] [--dry-run]
                [--shard I/N --record NAMESPACE/NAME] [--via object|status]
                [--concurrency ${migrateDefaults.concurrency}] [--chunk-size ${migrateDefaults.chunkSize}] [--qps ${migrateDefaults.qps}] [--retries ${migrateDefaults.retries}] [--output text|json]

  Lists every object of the resource (all namespaces, --chunk-size at a time) and writes each back unchanged, so
  the API server stores it in the CRD's storage version; managedFields entries recorded in versions the CRD no
  longer serves are dropped in the same write. When every object made it and the CRD did not change meanwhile,
  status.storedVersions is set to the storage version alone, so older versions can be removed.
  Without --kubeconfig: $KUBECONFIG, ~/.kube/config, or the in-cluster service account (as a Job).
  --dry-run         every write is sent with dryRun=All: conversion and admission run, nothing is stored; and
                    each object, as listed, is judged against the storage version's schema and rules as they
                    stand: the summary lists those that break them (they migrate, since a write that leaves a
                    field passes ratcheting, but any write that changes such a field is refused until fixed)
  --concurrency N   objects written at once          --qps N      client-side request rate limit
  --retries N       retries of a failed request (429, 5xx, resets, timeouts), with backoff and jitter; a
                    Retry-After from the API server (its priority and fairness shedding load) is waited out
  --shard I/N       write only the objects whose namespace/name hash falls in shard I of N (0 <= I < N); every
                    shard lists them all. In an Indexed Job: --shard $(JOB_COMPLETION_INDEX)/N
  --record NS/NAME  the ConfigMap where each shard records its result (key shard-I-of-N; created if absent and
                    allowed); required with N > 1. storedVersions is trimmed only when every shard has succeeded
                    for the same CRD generation and storage version; a shard killed and rerun overwrites its key
  --via status      write each object back through its status subresource: the API server stores it again,
                    and webhooks and policies on the resource's own updates do not see it (needs PLURAL/status)
  Exit code 0: done (or nothing to do; with --shard: this shard's objects are done and its result recorded,
  even when storedVersions still waits for other shards, which the summary names); 1: objects refused or the run
  could not finish (storedVersions untouched); 2: bad usage or configuration (no such CRD, API server
  unreachable, credentials refused, --via status without a status subresource); 3: stopped by SIGTERM
  (within ${MIGRATE_STOP_BOUND_SECONDS} s: waits end at once, a request in flight gets a few seconds, then the summary).`,
  options: {
    resource: { type: 'string' },
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'dry-run': { type: 'boolean' },
    concurrency: { type: 'string' },
    'chunk-size': { type: 'string' },
    qps: { type: 'string' },
    retries: { type: 'string' },
    output: { type: 'string', short: 'o' },
    shard: { type: 'string' },
    record: { type: 'string' },
    via: { type: 'string' },
  },
  async run(values, io) {
    const resource = requiredString(values, 'resource');
    // The CRD's name: a DNS-1123 subdomain of at least two parts (plural and group).
    if (!resource.includes('.') || !isDns1123Subdomain(resource)) {
      throw new UsageError(
        `--resource must be PLURAL.GROUP, the CRD's name (e.g. geodatabases.geo.example.com), got "${resource}"`,
      );
    }
    const output = stringOption(values, 'output') ?? 'text';
    if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be text or json, got "${output}"`);
    const concurrency = positiveInteger(values, 'concurrency', migrateDefaults.concurrency);
    const chunkSize = positiveInteger(values, 'chunk-size', migrateDefaults.chunkSize);
    const qps = positiveNumber(values, 'qps', migrateDefaults.qps);
    const retries = positiveInteger(values, 'retries', migrateDefaults.retries, { allowZero: true });
    const { shard, record } = shardOptions(stringOption(values, 'shard'), stringOption(values, 'record'));
    const via = stringOption(values, 'via') ?? 'object';
    if (via !== 'object' && via !== 'status') throw new UsageError(`--via must be object or status, got "${via}"`);

    const kubeConfig = await apiServerAccessFromFlags(values, io.cwd);
    const stop = new AbortController();
    void io.waitForStop().then(() => stop.abort());
    const progress = createProgressDisplay({ write: io.stderr, terminal: io.stderrIsTerminal === true });
    try {
      const api = createKubeApi(kubeConfig, { timeoutMs: migrateDefaults.requestTimeoutSeconds * 1000 });
      const report = await runMigration(api, {
        resource,
        dryRun: values['dry-run'] === true,
        concurrency,
        chunkSize,
        retry: defaultRetryPolicy(retries),
        // One second's worth of requests may go at once; a steady run is held to --qps.
        limiter: createRateLimiter({ qps, burst: Math.max(1, Math.ceil(qps)) }),
        sleep: realSleep,
        stop: stop.signal,
        ...(shard ? { shard } : {}),
        ...(record ? { record } : {}),
        via,
        storageRules: engineStorageRules(),
        onProgress: progress.update,
        onRetry: (what, error, delayMs) => {
          progress.finish();
          const reason =
            error instanceof KubeApiError ? `HTTP ${error.code}: ${error.message}` : (error as Error).message;
          io.stderr(`retrying ${what} in ${(delayMs / 1000).toFixed(1)} s: ${reason}\n`);
        },
      });
      progress.finish();
      io.stdout(output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report));
      const answer = migrationAnswer(report);
      if (answer === 'MIGRATION_INTERRUPTED') {
        throw new CommandError(
          answer,
          'stopped by a signal after the writes in flight; storedVersions left as it was (run again to finish)',
        );
      }
      return commandAnswers[answer].exitStatus;
    } catch (error) {
      progress.finish();
      throw asCommandError(error);
    }
  },
};

/** The migration's and the API client's refusals to start as the command's errors; anything else as it is. */
function asCommandError(error: unknown): unknown {
  if (error instanceof MigrationInterruptedError) return new CommandError('MIGRATION_INTERRUPTED', error.message);
  if (error instanceof MigrationConfigError) return new CommandError('MIGRATION_REFUSED', error.message);
  if (error instanceof KubeconfigError) return new CommandError('KUBECONFIG_INVALID', error.message);
  return error;
}

/** --shard and --record, checked before any kubeconfig is read (the rule itself: missingRecordProblem). */
function shardOptions(
  shardText: string | undefined,
  recordText: string | undefined,
): { shard?: Shard; record?: RecordRef } {
  let shard: Shard | undefined;
  let record: RecordRef | undefined;
  try {
    if (shardText !== undefined) shard = parseShard(shardText);
    if (recordText !== undefined) record = parseRecordRef(recordText);
  } catch (error) {
    if (error instanceof ShardFormatError || error instanceof RecordFormatError) throw new UsageError(error.message);
    throw error;
  }
  const missingRecord = missingRecordProblem(shard, record);
  if (missingRecord !== undefined) throw new UsageError(missingRecord);
  return { ...(shard ? { shard } : {}), ...(record ? { record } : {}) };
}
