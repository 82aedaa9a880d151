import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Manifest } from './manifest.ts';
import { generatedMarker, manifestsToYaml } from './manifest-yaml.ts';

const configMap = (name: string, data: Record<string, string>): Manifest => ({
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name },
  data,
});

describe('manifestsToYaml', () => {
  it('starts with the generated-file header and separates the documents with ---', () => {
    const text = manifestsToYaml([configMap('a', {}), configMap('b', {})]);
    expect(text.split('\n')[0]).toBe(`${generatedMarker} change the contract (or the flags) and generate again.`);
    expect(text.match(/^---$/gm)).toHaveLength(1);
    expect(parseAllDocuments(text).map((doc) => doc.toJS())).toEqual([configMap('a', {}), configMap('b', {})]);
  });

  it('sorts keys, so the text depends on the data and not on the order it was built in', () => {
    const built = manifestsToYaml([
      { metadata: { name: 'x' }, kind: 'ConfigMap', apiVersion: 'v1', data: { b: '2', a: '1' } },
    ]);
    const rebuilt = manifestsToYaml([
      { apiVersion: 'v1', data: { a: '1', b: '2' }, kind: 'ConfigMap', metadata: { name: 'x' } },
    ]);
    expect(built).toBe(rebuilt);
    expect(built.split('\n').slice(1, 5)).toEqual(['apiVersion: v1', 'data:', '  a: "1"', '  b: "2"']);
  });

  it('writes an object used twice in full, never as an anchor and alias', () => {
    const shared = { type: 'string' };
    const text = manifestsToYaml([
      { apiVersion: 'v1', kind: 'List', metadata: { name: 'x' }, first: shared, second: shared },
    ]);
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text.match(/type: string/g)).toHaveLength(2);
  });

  it('keeps long strings such as a caBundle on one line', () => {
    const caBundle = 'Q'.repeat(2000);
    const text = manifestsToYaml([configMap('ca', { caBundle })]);
    expect(text).toContain(`caBundle: ${caBundle}\n`);
  });
});

describe('manifestsToYaml with a comment', () => {
  it('writes each line of the comment as a YAML comment under the header, and the same documents after it', () => {
    const text = manifestsToYaml([configMap('a', {})], 'why\n\nhow');
    expect(text.split('\n').slice(1, 4)).toEqual(['# why', '#', '# how']);
    expect(parseAllDocuments(text).map((doc) => doc.toJS())).toEqual([configMap('a', {})]);
  });
});
