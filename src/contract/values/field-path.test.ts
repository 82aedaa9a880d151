import { describe, expect, it } from 'vitest';
import { fieldPathSteps, parseFieldPath, pointerSegments, renderFieldPath, valueAtPath } from './field-path.ts';

describe('field paths', () => {
  it('parses dots, indexes and bracketed keys', () => {
    expect(parseFieldPath('spec.caches[1].name')).toEqual(['spec', 'caches', 1, 'name']);
    expect(parseFieldPath('metadata.labels[app.kubernetes.io/name]')).toEqual([
      'metadata',
      'labels',
      'app.kubernetes.io/name',
    ]);
  });

  it('reads values, and undefined for missing steps or inherited properties', () => {
    const object = { spec: { caches: [{ name: 'a' }, { name: 'b' }] } };
    expect(valueAtPath(object, 'spec.caches[1].name')).toBe('b');
    expect(valueAtPath(object, 'spec.caches[2].name')).toBeUndefined();
    expect(valueAtPath(object, 'spec.caches.name')).toBeUndefined();
    expect(valueAtPath(object, 'spec.constructor')).toBeUndefined();
  });
});

describe('pointerSegments', () => {
  const data = { spec: { caches: [{ name: 'a' }], labels: { '1': 'x', 'a/b': 'y', 'c~d': 'z' } } };

  it('tells array indexes from keys that look like numbers by the data', () => {
    expect(pointerSegments(data, '/spec/caches/0/name')).toEqual(['spec', 'caches', 0, 'name']);
    expect(pointerSegments(data, '/spec/labels/1')).toEqual(['spec', 'labels', '1']);
  });

  it('unescapes JSON pointer escapes', () => {
    expect(pointerSegments(data, '/spec/labels/a~1b')).toEqual(['spec', 'labels', 'a/b']);
    expect(pointerSegments(data, '/spec/labels/c~0d')).toEqual(['spec', 'labels', 'c~d']);
  });

  it('is empty for the root', () => {
    expect(pointerSegments(data, '')).toEqual([]);
  });
});

describe('renderFieldPath', () => {
  it.each([
    ['', ['spec', 'caches', 1, 'name'], 'spec.caches[1].name'],
    ['', [], ''],
    ['', [0], '[0]'],
    ['spec', ['size'], 'spec.size'],
    ['spec.sizes', [2], 'spec.sizes[2]'],
    ['', ['metadata', 'labels', 'app.kubernetes.io/name'], 'metadata.labels[app.kubernetes.io/name]'],
    ['', ['spec', '1'], 'spec[1]'],
    ['', ['spec', 'with space'], 'spec[with space]'],
    ['', ['spec', 'line\nbreak'], 'spec[line\\u000abreak]'],
  ] as const)('%j + %j -> %j', (rootPath, segments, expected) => {
    expect(renderFieldPath(rootPath, segments)).toBe(expected);
  });
});

describe('one grammar for reading and writing paths', () => {
  it.each([
    [['spec', 'caches', 1, 'name']],
    [['metadata', 'labels', 'app.kubernetes.io/name']],
    [['spec', 'with space', 0]],
  ] as const)('parseFieldPath reads back what renderFieldPath writes: %j', (segments) => {
    expect(parseFieldPath(renderFieldPath('', segments))).toEqual(segments);
  });

  it('says where each step ends, so the rest of a path can be kept as written', () => {
    expect(fieldPathSteps('spec.caches[1].memory')).toEqual([
      { value: 'spec', end: 4 },
      { value: 'caches', end: 11 },
      { value: 1, end: 14 },
      { value: 'memory', end: 21 },
    ]);
  });
});
