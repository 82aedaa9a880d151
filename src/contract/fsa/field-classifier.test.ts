import { describe, expect, it } from 'vitest';
import { byDirection, whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';

const readNumber = (raw: unknown) => (typeof raw === 'number' ? raw : undefined);
const size = fieldClassifier({
  path: 'storage.size',
  read: readNumber,
  compare: byDirection({ compare: (a: number, b: number) => a - b, increase: 'grow', decrease: 'shrink' }),
});
const replicas = fieldClassifier({ path: 'replicas', absentMeans: 1, read: readNumber, compare: whenDifferent('scale') });
const spec = { field: 'spec' };

describe('fieldClassifier', () => {
  it('reports a change with its field and display values', () => {
    expect(size.classify({ storage: { size: 10 } }, { storage: { size: 20 } }, spec)).toEqual([
      { kind: 'grow', field: 'spec.storage.size', from: '10', to: '20' },
    ]);
    expect(size.kinds).toEqual(['grow', 'shrink']);
  });

  it('names the item when comparing inside a list item', () => {
    expect(replicas.classify({ replicas: 1 }, { replicas: 3 }, { field: 'spec.caches[2]', item: 'tiles' })).toEqual([
      { kind: 'scale', field: 'spec.caches[2].replicas', from: '1', to: '3', item: 'tiles' },
    ]);
  });

  it('treats an absent or null field as its default, so writing the default is no change', () => {
    expect(replicas.classify({}, { replicas: 1 }, spec)).toEqual([]);
    expect(replicas.classify({ replicas: null }, {}, spec)).toEqual([]);
    expect(replicas.classify({}, { replicas: 2 }, spec)).toEqual([{ kind: 'scale', field: 'spec.replicas', from: '1', to: '2' }]);
  });

  it('leaves values it cannot read to schema validation', () => {
    expect(size.classify({ storage: { size: 'big' } }, { storage: { size: 20 } }, spec)).toEqual([]);
    expect(size.classify({ storage: { size: 10 } }, { storage: { size: [20] } }, spec)).toEqual([]);
    expect(size.classify('junk', { storage: { size: 20 } }, spec)).toEqual([]);
  });

  it('reports nothing for equal values', () => {
    expect(size.classify({ storage: { size: 10 } }, { storage: { size: 10 } }, spec)).toEqual([]);
  });
});
