import { describe, expect, it } from 'vitest';
import { parseFieldPath, valueAtPath } from './field-path.ts';

describe('field paths', () => {
  it('parses dots, indexes and bracketed keys', () => {
    expect(parseFieldPath('spec.caches[1].name')).toEqual(['spec', 'caches', 1, 'name']);
    expect(parseFieldPath('metadata.labels[app.kubernetes.io/name]')).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
  });

  it('reads values, and undefined for missing steps or inherited properties', () => {
    const object = { spec: { caches: [{ name: 'a' }, { name: 'b' }] } };
    expect(valueAtPath(object, 'spec.caches[1].name')).toBe('b');
    expect(valueAtPath(object, 'spec.caches[2].name')).toBeUndefined();
    expect(valueAtPath(object, 'spec.caches.name')).toBeUndefined();
    expect(valueAtPath(object, 'spec.constructor')).toBeUndefined();
  });
});
