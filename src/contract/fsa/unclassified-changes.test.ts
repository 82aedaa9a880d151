import { describe, expect, it } from 'vitest';
import { compareQuantities } from '../values/quantity.ts';
import { byDirection, whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { keyedListClassifier } from './keyed-list-classifier.ts';
import type { Change, Classifier } from './machine.ts';
import { findUnclassifiedChanges, unclassifiedChangesNamed } from './unclassified-changes.ts';
import { readInteger, readQuantity, readString } from './value-readers.ts';

const size = fieldClassifier({
  path: 'storage.size',
  read: readQuantity,
  compare: byDirection({ compare: compareQuantities, increase: 'grow', decrease: 'shrink' }),
});
const replicas = fieldClassifier({
  path: 'replicas',
  absentMeans: 1,
  read: readInteger,
  compare: whenDifferent('scale'),
});
const caches = keyedListClassifier({
  path: 'caches',
  key: 'name',
  added: 'cache.add',
  removed: 'cache.remove',
  itemClassifiers: [fieldClassifier({ path: 'memory', read: readString, compare: whenDifferent('cache.resize') })],
});

/** The unclassified changes between two specs for `classifiers`, each run as evaluateTransition runs it. */
function find(classifiers: readonly Classifier<string>[], oldSpec: unknown, newSpec: unknown, limit?: number) {
  const classified = classifiers.map((classifier) => ({
    classifier,
    changes: classifier.classify(oldSpec, newSpec, { field: 'spec' }),
  }));
  return findUnclassifiedChanges(classified, oldSpec, newSpec, limit);
}

describe('findUnclassifiedChanges: fields no classifier covers', () => {
  it("names each changed field outside the classifiers' paths with both values, and none under them", () => {
    const found = find(
      [size, replicas],
      { replicas: 2, storage: { size: '1Gi', class: 'ssd' }, paused: false },
      { replicas: 3, storage: { size: '2Gi', class: 'hdd' }, paused: true },
    );
    expect(found).toEqual({
      changes: [
        { field: 'spec.storage.class', from: 'ssd', to: 'hdd' },
        { field: 'spec.paused', from: 'false', to: 'true' },
      ],
      more: 0,
    });
  });

  it("covers a field under a classifier's path whatever its value, a change or not, readable or not", () => {
    expect(find([size], { storage: { size: '1Gi' } }, { storage: { size: 'lots' } }).changes).toEqual([]);
    expect(find([size], { storage: { size: { nested: 1 } } }, { storage: { size: '1024Mi' } }).changes).toEqual([]);
  });

  it('compares absent and null alike, at every level', () => {
    expect(find([size], { tuning: null, labels: { a: null } }, { labels: {} }).changes).toEqual([]);
    expect(find([size], {}, { tuning: null }).changes).toEqual([]);
    expect(find([size], { extra: [1, { x: null }] }, { extra: [1, {}] }).changes).toEqual([]);
  });

  it('names the deepest field that differs, and a value that appears or goes as a whole', () => {
    const found = find(
      [replicas],
      { tuning: { memory: { work: '4MB', shared: '1GB' } } },
      { tuning: { memory: { work: '8MB', shared: '1GB' } }, backup: { schedule: '@daily' } },
    );
    expect(found.changes).toEqual([
      { field: 'spec.tuning.memory.work', from: '4MB', to: '8MB' },
      { field: 'spec.backup', to: '{"schedule":"@daily"}' },
    ]);
    expect(find([replicas], { backup: { schedule: '@daily' } }, {}).changes).toEqual([
      { field: 'spec.backup', from: '{"schedule":"@daily"}' },
    ]);
  });

  it('takes an object some classifier looks into as empty when absent, so that its covered fields alone are no change', () => {
    expect(find([size], {}, { storage: { size: '1Gi' } }).changes).toEqual([]);
    expect(find([size], {}, { storage: { size: '1Gi', class: 'ssd' } }).changes).toEqual([
      { field: 'spec.storage.class', to: 'ssd' },
    ]);
  });

  it('compares a list no classifier looks into as a whole, and a value of another shape as a change', () => {
    expect(find([replicas], { args: ['a', 'b'] }, { args: ['b', 'a'] }).changes).toEqual([
      { field: 'spec.args', from: '["a","b"]', to: '["b","a"]' },
    ]);
    expect(find([size], { storage: 'big' }, { storage: { size: '1Gi' } }).changes).toEqual([
      { field: 'spec.storage', from: 'big', to: '{"size":"1Gi"}' },
    ]);
  });

  it('treats a spec that is absent as empty', () => {
    expect(find([replicas], undefined, { replicas: 2 }).changes).toEqual([]);
    expect(find([replicas], undefined, { paused: true }).changes).toEqual([{ field: 'spec.paused', to: 'true' }]);
  });
});

describe('findUnclassifiedChanges: keyed lists', () => {
  const old = {
    caches: [
      { name: 'a', memory: '1Gi', tier: 'hot' },
      { name: 'b', memory: '1Gi', tier: 'hot' },
    ],
  };

  it("matches items by their keys: added and removed items are the list's, a kept item's other fields are not covered", () => {
    const found = find([caches], old, {
      caches: [
        { name: 'c', memory: '9Gi', tier: 'cold' },
        { name: 'b', memory: '2Gi', tier: 'cold' },
      ],
    });
    // a removed, c added, b kept: its memory is classified, its tier is not; named by b's index in the new list.
    expect(found.changes).toEqual([{ field: 'spec.caches[1].tier', from: 'hot', to: 'cold' }]);
  });

  it('sees no change in a reordering, and compares each kept item with the one of its key', () => {
    expect(find([caches], old, { caches: [...old.caches].reverse() }).changes).toEqual([]);
    expect(find([caches], old, { caches: [{ ...old.caches[1], tier: 'cold' }, old.caches[0]] }).changes).toEqual([
      { field: 'spec.caches[0].tier', from: 'hot', to: 'cold' },
    ]);
  });

  it('matches by every key of a list with several, of any scalar type', () => {
    const ports: Classifier<string> = {
      kinds: ['port'],
      target: { classify: 'keyed-list', path: 'ports', keys: ['port', 'protocol'], items: [] },
      classify: () => [],
    };
    const before = {
      ports: [
        { port: 80, protocol: 'TCP', name: 'http' },
        { port: 80, protocol: 'UDP', name: 'dns' },
      ],
    };
    const after = {
      ports: [
        { port: 80, protocol: 'UDP', name: 'quic' },
        { port: 80, protocol: 'TCP', name: 'http' },
      ],
    };
    expect(find([ports], before, after).changes).toEqual([{ field: 'spec.ports[0].name', from: 'dns', to: 'quic' }]);
  });

  it('lets an item classifier without a target cover the fields of the changes it reports', () => {
    const tierOfOwn: Classifier<string> = {
      kinds: ['cache.retier'],
      classify: (before, after, at) =>
        (before as { tier?: string }).tier !== (after as { tier?: string }).tier
          ? [{ kind: 'cache.retier', field: `${at.field}.tier` }]
          : [],
    };
    const list = keyedListClassifier({
      path: 'caches',
      key: 'name',
      added: 'cache.add',
      removed: 'cache.remove',
      itemClassifiers: [tierOfOwn],
    });
    const after = {
      caches: [
        { name: 'a', memory: '2Gi', tier: 'cold' },
        { name: 'b', memory: '1Gi', tier: 'hot' },
      ],
    };
    expect(find([list], old, after).changes).toEqual([{ field: 'spec.caches[0].memory', from: '1Gi', to: '2Gi' }]);
  });
});

describe('findUnclassifiedChanges: classifiers without a target', () => {
  const ofOwn: Classifier<string> = {
    kinds: ['mode'],
    classify: (before, after) =>
      (before as { mode?: string }).mode !== (after as { mode?: string }).mode
        ? [{ kind: 'mode', field: 'spec.mode' } satisfies Change<string>]
        : [],
  };

  it('covers only the fields of the changes such a classifier reports in the update', () => {
    expect(find([ofOwn], { mode: 'a', level: 1 }, { mode: 'b', level: 2 }).changes).toEqual([
      { field: 'spec.level', from: '1', to: '2' },
    ]);
    // It reports nothing here, so its field is as uncovered as any other.
    const blind: Classifier<string> = { kinds: ['mode'], classify: () => [] };
    expect(find([blind], { mode: 'a' }, { mode: 'b' }).changes).toEqual([{ field: 'spec.mode', from: 'a', to: 'b' }]);
  });
});

describe('findUnclassifiedChanges: bounded', () => {
  it(`names the first ${unclassifiedChangesNamed} and counts the rest`, () => {
    const before = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`f${index}`, index]));
    const after = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`f${index}`, index + 1]));
    const found = find([replicas], before, after);
    expect(found.changes.map((change) => change.field)).toEqual(
      Array.from({ length: unclassifiedChangesNamed }, (_, index) => `spec.f${index}`),
    );
    expect(found.more).toBe(20 - unclassifiedChangesNamed);
    expect(find([replicas], before, after, 2).more).toBe(18);
  });

  it('shortens long values and odd keys, as every change shows them', () => {
    const found = find([replicas], { notes: 'x'.repeat(10_000) }, { notes: 'y'.repeat(10_000), 'a.b/c': 1 });
    expect(
      found.changes.map((change) => [
        change.field.length < 80,
        (change.from ?? '').length < 80,
        (change.to ?? '').length < 80,
      ]),
    ).toEqual([
      [true, true, true],
      [true, true, true],
    ]);
    expect(found.changes[1]?.field).toBe('spec[a.b/c]');
  });

  it('names a change nested deeper than it walks at a bounded depth, and takes values deeper than the server does as changed', () => {
    const nest = (depth: number, leaf: unknown): unknown =>
      Array.from({ length: depth }).reduce<unknown>((inner) => ({ n: inner }), leaf);
    const found = find([replicas], { deep: nest(100, 1) }, { deep: nest(100, 2) });
    expect(found.changes).toHaveLength(1);
    expect(found.changes[0]!.field.split('.')).toHaveLength(33);
    // Ten thousand levels: no stack overflow, and a change though both sides hold the same.
    expect(find([replicas], { deep: nest(10_000, 1) }, { deep: nest(10_000, 1) }).changes).toHaveLength(1);
  });

  it('walks a spec of a hundred thousand fields in linear time', () => {
    const before = Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`f${index}`, { v: index }]));
    const after = { ...before, f99999: { v: -1 } };
    const start = performance.now();
    expect(find([replicas], before, after).changes).toEqual([{ field: 'spec.f99999.v', from: '99999', to: '-1' }]);
    expect(performance.now() - start).toBeLessThan(2_000);
  });
});
