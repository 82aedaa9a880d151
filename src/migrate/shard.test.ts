import { describe, expect, it } from 'vitest';
import { fnv1a32, inShard, parseShard, ShardFormatError, shardOf } from './shard.ts';

describe('fnv1a32', () => {
  it('is FNV-1a 32-bit: the published test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes, so a name means the same shard in every process', () => {
    expect(fnv1a32('é')).toBe(fnv1a32('\u00e9'));
    expect(fnv1a32('é')).not.toBe(fnv1a32('e'));
  });
});

describe('shardOf', () => {
  const objects = Array.from({ length: 2000 }, (_, i) => ({
    namespace: `ns-${i % 7}`,
    name: `db-${String(i).padStart(4, '0')}`,
  }));

  it('puts every object in exactly one shard', () => {
    for (const object of objects.slice(0, 200)) {
      const shards = [0, 1, 2, 3].filter((index) => inShard(object, { index, count: 4 }));
      expect(shards).toEqual([shardOf(object, 4)]);
    }
  });

  it('spreads 2,000 names evenly enough over 4 shards (each within 20% of a quarter)', () => {
    const sizes = [0, 0, 0, 0];
    for (const object of objects) sizes[shardOf(object, 4)]!++;
    for (const size of sizes) expect(Math.abs(size - 500)).toBeLessThan(100);
  });

  it('tells namespaces apart and hashes cluster-scoped objects as /NAME', () => {
    expect(shardOf({ name: 'x' }, 1_000_003)).toBe(fnv1a32('/x') % 1_000_003);
    expect(shardOf({ namespace: 'a', name: 'b/c' }, 1_000_003)).toBe(fnv1a32('a/b/c') % 1_000_003);
    expect(shardOf({ namespace: 'a', name: 'x' }, 1_000_003)).not.toBe(
      shardOf({ namespace: 'b', name: 'x' }, 1_000_003),
    );
  });

  it('with one shard, every object is in it', () => {
    expect(objects.every((object) => inShard(object, { index: 0, count: 1 }))).toBe(true);
  });
});

describe('parseShard', () => {
  it('reads I/N', () => {
    expect(parseShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard('3/4')).toEqual({ index: 3, count: 4 });
  });

  it.each(['4/4', '0/0', '-1/4', '1', '1/', 'a/4', '1/4/2', ' 1/4', '1.0/4'])('refuses "%s"', (text) => {
    expect(() => parseShard(text)).toThrow(ShardFormatError);
    expect(() => parseShard(text)).toThrow(`got "${text}"`);
  });

  it('says why $(JOB_COMPLETION_INDEX) was not expanded', () => {
    expect(() => parseShard('$(JOB_COMPLETION_INDEX)/4')).toThrow(/completionMode: Indexed/);
  });
});
