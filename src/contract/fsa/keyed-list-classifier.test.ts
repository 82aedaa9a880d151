import { describe, expect, it } from 'vitest';
import { whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { keyedListClassifier } from './keyed-list-classifier.ts';

const caches = keyedListClassifier({
  path: 'caches',
  key: 'name',
  absentMeans: [],
  added: 'cache.add',
  removed: 'cache.remove',
  itemClassifiers: [fieldClassifier({ path: 'memory', read: (raw) => (typeof raw === 'string' ? raw : undefined), compare: whenDifferent('cache.resize') })],
});
const spec = { field: 'spec' };

describe('keyedListClassifier', () => {
  it('lists every kind its parts can report', () => {
    expect(caches.kinds).toEqual(['cache.add', 'cache.remove', 'cache.resize']);
  });

  it('reports added items at their new index and removed ones at the list', () => {
    const before = { caches: [{ name: 'tiles', memory: '1Gi' }, { name: 'old', memory: '1Gi' }] };
    const after = { caches: [{ name: 'tiles', memory: '1Gi' }, { name: 'fresh', memory: '1Gi' }] };
    expect(caches.classify(before, after, spec)).toEqual([
      { kind: 'cache.add', field: 'spec.caches[1]', item: 'fresh' },
      { kind: 'cache.remove', field: 'spec.caches', item: 'old' },
    ]);
  });

  it('matches items by key, not position', () => {
    const before = { caches: [{ name: 'a', memory: '1Gi' }, { name: 'b', memory: '1Gi' }] };
    const reordered = { caches: [{ name: 'b', memory: '1Gi' }, { name: 'a', memory: '1Gi' }] };
    expect(caches.classify(before, reordered, spec)).toEqual([]);
    const resized = { caches: [{ name: 'b', memory: '2Gi' }, { name: 'a', memory: '1Gi' }] };
    expect(caches.classify(before, resized, spec)).toEqual([
      { kind: 'cache.resize', field: 'spec.caches[0].memory', from: '1Gi', to: '2Gi', item: 'b' },
    ]);
  });

  it('treats an absent list as empty', () => {
    expect(caches.classify({}, { caches: [] }, spec)).toEqual([]);
    expect(caches.classify({}, { caches: [{ name: 'a' }] }, spec)).toEqual([{ kind: 'cache.add', field: 'spec.caches[0]', item: 'a' }]);
  });

  it('leaves lists and items it cannot read to schema validation', () => {
    expect(caches.classify({ caches: 'junk' }, { caches: [{ name: 'a' }] }, spec)).toEqual([]);
    expect(caches.classify({ caches: [] }, { caches: [42, { memory: '1Gi' }, { name: 7 }] }, spec)).toEqual([]);
  });

  it('compares the first of duplicate names only', () => {
    const before = { caches: [{ name: 'a', memory: '1Gi' }] };
    const after = { caches: [{ name: 'a', memory: '1Gi' }, { name: 'a', memory: '9Gi' }] };
    expect(caches.classify(before, after, spec)).toEqual([]);
  });

  it('never looks up inherited keys', () => {
    expect(caches.classify({ caches: [{ name: 'constructor' }] }, { caches: [] }, spec)).toEqual([
      { kind: 'cache.remove', field: 'spec.caches', item: 'constructor' },
    ]);
    expect(caches.classify({ caches: [{}] }, { caches: [] }, spec)).toEqual([]);
  });
});
