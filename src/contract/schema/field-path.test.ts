import { describe, expect, it } from 'vitest';
import { pointerSegments, renderFieldPath } from './field-path.ts';

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
