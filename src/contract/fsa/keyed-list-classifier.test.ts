import { describe, expect, it } from 'vitest';
import { compareQuantities } from '../values/quantity.ts';
import { byDirection, whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { keyedListClassifier } from './keyed-list-classifier.ts';
import { readQuantity, readString } from './value-readers.ts';

const caches = keyedListClassifier({
  path: 'caches',
  key: 'name',
  absentMeans: [],
  added: 'cache.add',
  removed: 'cache.remove',
  itemClassifiers: [
    fieldClassifier({
      path: 'memory',
      read: (raw) => (typeof raw === 'string' ? raw : undefined),
      compare: whenDifferent('cache.resize'),
    }),
  ],
});
const spec = { field: 'spec' };

describe('keyedListClassifier', () => {
  it('lists every kind its parts can report', () => {
    expect(caches.kinds).toEqual(['cache.add', 'cache.remove', 'cache.resize']);
  });

  it('reports added items at their new index and removed ones at the list', () => {
    const before = {
      caches: [
        { name: 'tiles', memory: '1Gi' },
        { name: 'old', memory: '1Gi' },
      ],
    };
    const after = {
      caches: [
        { name: 'tiles', memory: '1Gi' },
        { name: 'fresh', memory: '1Gi' },
      ],
    };
    expect(caches.classify(before, after, spec)).toEqual([
      { kind: 'cache.add', field: 'spec.caches[1]', item: 'fresh' },
      { kind: 'cache.remove', field: 'spec.caches', item: 'old' },
    ]);
  });

  it('matches items by key, not position', () => {
    const before = {
      caches: [
        { name: 'a', memory: '1Gi' },
        { name: 'b', memory: '1Gi' },
      ],
    };
    const reordered = {
      caches: [
        { name: 'b', memory: '1Gi' },
        { name: 'a', memory: '1Gi' },
      ],
    };
    expect(caches.classify(before, reordered, spec)).toEqual([]);
    const resized = {
      caches: [
        { name: 'b', memory: '2Gi' },
        { name: 'a', memory: '1Gi' },
      ],
    };
    expect(caches.classify(before, resized, spec)).toEqual([
      { kind: 'cache.resize', field: 'spec.caches[0].memory', from: '1Gi', to: '2Gi', item: 'b' },
    ]);
  });

  it('treats an absent list as empty', () => {
    expect(caches.classify({}, { caches: [] }, spec)).toEqual([]);
    expect(caches.classify({}, { caches: [{ name: 'a' }] }, spec)).toEqual([
      { kind: 'cache.add', field: 'spec.caches[0]', item: 'a' },
    ]);
  });

  it('fails closed on a list with items that appears or disappears where nothing says what absence means', () => {
    const shards = keyedListClassifier({
      path: 'shards',
      key: 'name',
      added: 'shard.add',
      removed: 'shard.remove',
      itemClassifiers: [],
    });
    const reason = 'an absent list is no list of items (absentMeans would say what absence means)';
    expect(shards.classify({}, { shards: [{ name: 'a' }] }, spec)).toEqual([
      { kind: 'shard.add', field: 'spec.shards', to: '[{"name":"a"}]', undecidable: reason },
    ]);
    expect(shards.classify({ shards: [{ name: 'a' }] }, {}, spec)).toEqual([
      { kind: 'shard.add', field: 'spec.shards', from: '[{"name":"a"}]', undecidable: reason },
    ]);
    expect(shards.classify({}, { shards: [] }, spec)).toEqual([]);
    expect(shards.classify({}, { shards: 'junk' }, spec)).toEqual([]);
  });

  it('leaves lists and items that are not objects to schema validation', () => {
    expect(caches.classify({ caches: 'junk' }, { caches: [{ name: 'a' }] }, spec)).toEqual([]);
    expect(caches.classify({ caches: [] }, { caches: [42, 'a', null] }, spec)).toEqual([]);
  });

  // The API server keys an item without its key field (or with null there) by "unspecified", a key of its own.
  it('keys an item without its key as the API server does, by the key being absent', () => {
    expect(caches.classify({ caches: [{ memory: '1Gi' }] }, { caches: [{ memory: '2Gi' }] }, spec)).toEqual([
      { kind: 'cache.resize', field: 'spec.caches[0].memory', from: '1Gi', to: '2Gi', item: '(none)' },
    ]);
    expect(caches.classify({ caches: [{ name: null }] }, { caches: [{}] }, spec)).toEqual([]);
    expect(caches.classify({ caches: [{}] }, { caches: [] }, spec)).toEqual([
      { kind: 'cache.remove', field: 'spec.caches', item: '(none)' },
    ]);
  });

  it('fails closed on items it cannot tell apart: two with one key', () => {
    const before = { caches: [{ name: 'a', memory: '1Gi' }] };
    const after = {
      caches: [
        { name: 'a', memory: '1Gi' },
        { name: 'a', memory: '9Gi' },
      ],
    };
    expect(caches.classify(before, after, spec)).toEqual([
      {
        kind: 'cache.add',
        field: 'spec.caches',
        from: '[{"name":"a","memory":"1Gi"}]',
        to: '[{"name":"a","memory":"1Gi"},{"name":"a","memory":"9Gi"}]',
        undecidable: 'two items have the key a, so its items cannot be told apart',
      },
    ]);
    expect(caches.classify(after, after, spec)).toEqual([]);
  });

  it('never looks up inherited keys', () => {
    expect(caches.classify({ caches: [{ name: 'constructor' }] }, { caches: [] }, spec)).toEqual([
      { kind: 'cache.remove', field: 'spec.caches', item: 'constructor' },
    ]);
    expect(caches.classify({ caches: [{ name: 'toString' }] }, { caches: [{}] }, spec)).toHaveLength(2);
  });

  it('says where it looks and what it compares, keys as a list', () => {
    expect(caches.target).toEqual({
      classify: 'keyed-list',
      path: 'caches',
      keys: ['name'],
      items: [{ classify: 'field', path: 'memory', reading: 'custom' }],
    });
    expect(caches.form).toMatchObject({ classify: 'keyed-list', path: 'caches', keys: ['name'] });
  });
});

// Issue 40: Strimzi's JBOD volumes are keyed by an integer id, and a classifier keyed by it classified nothing at all.
describe('keyedListClassifier: keys that are not strings, and several keys', () => {
  const volumes = keyedListClassifier({
    path: 'storage.volumes',
    key: 'id',
    added: 'volume.add',
    removed: 'volume.remove',
    itemClassifiers: [
      fieldClassifier({
        path: 'size',
        read: readQuantity,
        compare: byDirection({ compare: compareQuantities, increase: 'volume.grow', decrease: 'volume.shrink' }),
      }),
      fieldClassifier({ path: 'type', read: readString, compare: whenDifferent('volume.retype') }),
    ],
  });
  const jbod = (...items: object[]) => ({ storage: { volumes: items } });

  it('compares items keyed by an integer, naming them by it', () => {
    const before = jbod(
      { id: 0, type: 'persistent-claim', size: '100Gi' },
      { id: 1, type: 'persistent-claim', size: '100Gi' },
    );
    const after = jbod(
      { id: 1, type: 'ephemeral', size: '100Gi' },
      { id: 0, type: 'persistent-claim', size: '50Gi' },
      { id: 2, size: '1Ti' },
    );
    expect(volumes.classify(before, after, spec)).toEqual([
      {
        kind: 'volume.retype',
        field: 'spec.storage.volumes[0].type',
        from: 'persistent-claim',
        to: 'ephemeral',
        item: '1',
      },
      { kind: 'volume.shrink', field: 'spec.storage.volumes[1].size', from: '100Gi', to: '50Gi', item: '0' },
      { kind: 'volume.add', field: 'spec.storage.volumes[2]', item: '2' },
    ]);
    expect(volumes.classify(before, jbod({ id: 1, type: 'persistent-claim', size: '100Gi' }), spec)).toEqual([
      { kind: 'volume.remove', field: 'spec.storage.volumes', item: '0' },
    ]);
  });

  it('tells the integer 1 from the string "1", as the API server does', () => {
    expect(volumes.classify(jbod({ id: 1 }), jbod({ id: '1' }), spec)).toEqual([
      { kind: 'volume.add', field: 'spec.storage.volumes[0]', item: '1' },
      { kind: 'volume.remove', field: 'spec.storage.volumes', item: '1' },
    ]);
  });

  it('compares items keyed by a boolean', () => {
    const flags = keyedListClassifier({
      path: 'flags',
      key: 'on',
      added: 'flag.add',
      removed: 'flag.remove',
      itemClassifiers: [],
    });
    expect(flags.classify({ flags: [{ on: true }] }, { flags: [{ on: false }] }, spec)).toEqual([
      { kind: 'flag.add', field: 'spec.flags[0]', item: 'false' },
      { kind: 'flag.remove', field: 'spec.flags', item: 'true' },
    ]);
  });

  it('fails closed on an integer key past 2^53, which it cannot tell from its neighbours', () => {
    const [change] = volumes.classify(jbod({ id: 2 ** 60, size: '1Gi' }), jbod({ id: 2 ** 60, size: '2Gi' }), spec);
    expect(change?.undecidable).toBe(
      'a key of 1152921504606847000 is past 2^53, which crdgate cannot hold exactly, so its items cannot be told apart',
    );
  });

  it('keys items by several fields together, naming them by each', () => {
    const ports = keyedListClassifier({
      path: 'ports',
      key: ['containerPort', 'protocol'],
      added: 'port.add',
      removed: 'port.remove',
      itemClassifiers: [fieldClassifier({ path: 'name', read: readString, compare: whenDifferent('port.rename') })],
    });
    const before = {
      ports: [
        { containerPort: 53, protocol: 'UDP', name: 'dns' },
        { containerPort: 53, protocol: 'TCP', name: 'dns-tcp' },
      ],
    };
    const after = {
      ports: [
        { containerPort: 53, protocol: 'TCP', name: 'dns' },
        { containerPort: 54, protocol: 'UDP' },
      ],
    };
    expect(ports.classify(before, after, spec)).toEqual([
      {
        kind: 'port.rename',
        field: 'spec.ports[0].name',
        from: 'dns-tcp',
        to: 'dns',
        item: 'containerPort=53, protocol=TCP',
      },
      { kind: 'port.add', field: 'spec.ports[1]', item: 'containerPort=54, protocol=UDP' },
      { kind: 'port.remove', field: 'spec.ports', item: 'containerPort=53, protocol=UDP' },
    ]);
    expect(ports.target).toMatchObject({ keys: ['containerPort', 'protocol'] });
    expect(ports.form).toMatchObject({ keys: ['containerPort', 'protocol'] });
  });
});
