import type { KubeApi, KubeResponse } from '../kube/kube-api.ts';
import { isDns1123Label, isDns1123Subdomain } from '../contract/values/dns-names.ts';
import type { Attempt, Failure, Operation } from './retry-policy.ts';
import type { Shard } from './shard.ts';
import { MIGRATE_FIELD_MANAGER } from './managed-fields.ts';

/**
 * Where the shards of one migration say how they did: a ConfigMap with a key per shard (`shard-I-of-N`), so that
 * whichever shard finishes last can see that every shard succeeded, and only then trim storedVersions. A result
 * counts only for the CRD generation and storage version it was made for: objects written under another storage
 * version prove nothing about this one.
 */
export interface ShardResult {
  /** The CRD's metadata.generation when the shard started. */
  generation: number;
  storageVersion: string;
  result: 'succeeded' | 'failed';
  /** This shard's objects the run looked at. */
  objects: number;
  /** RFC 3339 */
  finishedAt: string;
}

export interface RecordRef {
  namespace: string;
  name: string;
}

export class RecordFormatError extends Error {
  override name = 'RecordFormatError';
}

/** `NAMESPACE/NAME` as --record takes it. */
export function parseRecordRef(text: string): RecordRef {
  const [namespace, name, ...rest] = text.split('/');
  if (rest.length > 0 || !namespace || !name || !isDns1123Label(namespace) || !isDns1123Subdomain(name)) {
    throw new RecordFormatError(
      `--record must be NAMESPACE/NAME, the ConfigMap the shards record their results in (e.g. crdgate-system/crdgate-migration), got "${text}"`,
    );
  }
  return { namespace, name };
}

/**
 * Why a shard cannot run without a record, or undefined when it can: a shard of several needs the record, or no
 * shard could know when every shard has succeeded and storedVersions may be trimmed. The one statement of the
 * rule: the CLI says it before reading a kubeconfig, runMigration refuses to start on it.
 */
export function missingRecordProblem(shard: Shard | undefined, record: RecordRef | undefined): string | undefined {
  if (!shard || shard.count <= 1 || record) return undefined;
  return `--shard ${shard.index}/${shard.count} needs --record NAMESPACE/NAME: the shards record their results there, and storedVersions is trimmed only once every shard has succeeded`;
}

export function describeRecord(ref: RecordRef): string {
  return `${ref.namespace}/${ref.name}`;
}

export function shardKey(shard: Shard): string {
  return `shard-${shard.index}-of-${shard.count}`;
}

/** What the record says of every shard of a run, for one CRD generation and storage version. */
export interface ShardTally {
  /** Every shard succeeded for this generation and storage version: storedVersions may be trimmed. */
  complete: boolean;
  succeeded: number[];
  failed: number[];
  /** No result yet (or one that cannot be read): still running, killed, or never started. */
  missing: number[];
  /** A result for another CRD generation or storage version: that shard must run again. */
  stale: number[];
}

/**
 * Tallies the ConfigMap's data for a run of `count` shards. Keys of another shard count (an earlier run split
 * differently) are not this run's and are ignored.
 */
export function tallyShards(
  data: Record<string, string> | undefined,
  count: number,
  expected: { generation: number; storageVersion: string },
): ShardTally {
  const tally: ShardTally = { complete: false, succeeded: [], failed: [], missing: [], stale: [] };
  for (let index = 0; index < count; index++) {
    const result = readResult(data?.[shardKey({ index, count })]);
    if (!result) tally.missing.push(index);
    else if (result.generation !== expected.generation || result.storageVersion !== expected.storageVersion)
      tally.stale.push(index);
    else if (result.result === 'succeeded') tally.succeeded.push(index);
    else tally.failed.push(index);
  }
  tally.complete = tally.succeeded.length === count;
  return tally;
}

/** The words after "storedVersions left as it was: ", naming every shard that holds the trim back. */
export function describeWaiting(tally: ShardTally, expected: { generation: number; storageVersion: string }): string {
  const list = (indexes: number[]) => `${indexes.length === 1 ? 'shard' : 'shards'} ${indexes.join(', ')}`;
  const parts: string[] = [];
  if (tally.missing.length > 0) parts.push(`waiting for ${list(tally.missing)}`);
  if (tally.failed.length > 0)
    parts.push(`${list(tally.failed)} failed (run ${tally.failed.length === 1 ? 'it' : 'them'} again)`);
  if (tally.stale.length > 0) {
    parts.push(
      `${list(tally.stale)} recorded a result for another CRD generation or storage version (run ${tally.stale.length === 1 ? 'it' : 'them'} again)`,
    );
  }
  const total = tally.succeeded.length + tally.failed.length + tally.missing.length + tally.stale.length;
  return `${parts.join('; ')}; ${tally.succeeded.length} of ${total} succeeded for generation ${expected.generation}, storage version ${expected.storageVersion}`;
}

function readResult(value: string | undefined): ShardResult | undefined {
  if (value === undefined) return undefined;
  let parsed: Partial<ShardResult>;
  try {
    parsed = JSON.parse(value) as Partial<ShardResult>;
  } catch {
    return undefined;
  }
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    typeof parsed.generation === 'number' &&
    typeof parsed.storageVersion === 'string' &&
    (parsed.result === 'succeeded' || parsed.result === 'failed');
  return valid ? (parsed as ShardResult) : undefined;
}

/** A request of the run: rate-limited and retried as retry-policy.ts decides (run-migration.ts's `send`). */
export type Send = (
  operation: Operation,
  call: (signal: AbortSignal) => Promise<KubeResponse>,
  what: string,
) => Promise<Attempt<KubeResponse>>;

export type Recorded = { ok: true; data: Record<string, string> } | { ok: false; failure: Failure; what: string };

/** Shards write their keys at the same time: each write is guarded by the ConfigMap's resourceVersion. */
const MAX_RECORD_CONFLICTS = 20;

interface ConfigMapJson {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
}

/**
 * Writes this shard's key (overwriting what an earlier run of the same index wrote) and returns the ConfigMap's data
 * as the write left it: every shard that wrote before is in it, so the last of the shards to write sees them all.
 * Creates the ConfigMap when it is absent (the rendered install ships it empty, so a Job never needs to).
 */
export async function recordShardResult(
  api: Pick<KubeApi, 'request'>,
  send: Send,
  ref: RecordRef,
  shard: Shard,
  result: ShardResult,
): Promise<Recorded> {
  const collection = `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/configmaps`;
  const path = `${collection}/${encodeURIComponent(ref.name)}`;
  const key = shardKey(shard);
  const value = JSON.stringify(result);
  const record = describeRecord(ref);
  for (let conflicts = 0; ; conflicts++) {
    const read = await send(
      'read-record',
      (signal) => api.request('GET', path, { signal }),
      `read the ConfigMap ${record}`,
    );
    let written: Attempt<KubeResponse>;
    let what: string;
    if (read.ok) {
      const configMap = read.value.body as ConfigMapJson;
      what = `update the ConfigMap ${record}`;
      const body = { ...configMap, data: { ...configMap.data, [key]: value } };
      written = await send(
        'write-record',
        (signal) => api.request('PUT', path, { query: { fieldManager: MIGRATE_FIELD_MANAGER }, body, signal }),
        what,
      );
    } else if (read.class === 'gone') {
      what = `create the ConfigMap ${record}`;
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ref.name, namespace: ref.namespace },
        data: { [key]: value },
      };
      written = await send(
        'write-record',
        (signal) => api.request('POST', collection, { query: { fieldManager: MIGRATE_FIELD_MANAGER }, body, signal }),
        what,
      );
    } else {
      return { ok: false, failure: read, what: `read the ConfigMap ${record}` };
    }
    if (written.ok) return { ok: true, data: (written.value.body as ConfigMapJson | undefined)?.data ?? {} };
    // Another shard wrote (or created) it between our read and our write: read it again, never overwrite blindly.
    if (written.class === 'conflict' && conflicts < MAX_RECORD_CONFLICTS) continue;
    return { ok: false, failure: written, what };
  }
}
