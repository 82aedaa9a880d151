/**
 * Which objects a shard of the migration writes. The API server has no hash selector, so every shard lists the
 * whole collection and writes only the objects whose `namespace/name` hash falls in it. The hash is FNV-1a 32-bit:
 * stable across processes, versions and machines (a shard rerun after a kill picks the same objects), and cheap
 * enough to run on every listed object.
 */
export interface Shard {
  /** 0 <= index < count */
  index: number;
  count: number;
}

/** Every object: what a run without --shard migrates. */
export const wholeCollection: Shard = { index: 0, count: 1 };

export class ShardFormatError extends Error {
  override name = 'ShardFormatError';
}

/**
 * `I/N` as --shard takes it. In an Indexed Job the argument is `$(JOB_COMPLETION_INDEX)/N`, which the kubelet
 * expands from the container's environment; when the variable is not set it leaves the text as it is, and the
 * message says why that happens.
 */
export function parseShard(text: string): Shard {
  if (text.includes('$(')) {
    throw new ShardFormatError(
      `--shard must be I/N, got "${text}": Kubernetes leaves $(VAR) unexpanded when the container has no such variable; JOB_COMPLETION_INDEX is set only in a Job with completionMode: Indexed`,
    );
  }
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index >= count) {
    throw new ShardFormatError(
      `--shard must be I/N with 0 <= I < N (e.g. 0/4 for the first of four shards), got "${text}"`,
    );
  }
  return { index, count };
}

/** The shard an object belongs to among `count`; cluster-scoped objects hash as `/NAME`. */
export function shardOf(metadata: { namespace?: string | undefined; name: string }, count: number): number {
  return fnv1a32(`${metadata.namespace ?? ''}/${metadata.name}`) % count;
}

export function inShard(metadata: { namespace?: string | undefined; name: string }, shard: Shard): boolean {
  return shard.count === 1 || shardOf(metadata, shard.count) === shard.index;
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
