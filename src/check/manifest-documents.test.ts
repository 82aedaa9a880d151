import { describe, expect, it } from 'vitest';
import { manifestFormat, ManifestSyntaxError, parseManifest } from './manifest-documents.ts';

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe('parseManifest', () => {
  it('reads every document of a YAML stream, with its number and first line, and ignores empty ones', () => {
    const text = `# leading comment\n${configMap('a')}---\n# only a comment\n---\n${configMap('b')}---\n`;
    const { objects, notObjects } = parseManifest('m.yaml', text, 'yaml');
    expect(objects.map((o) => [o.object.metadata?.name, o.location])).toEqual([
      ['a', { file: 'm.yaml', document: 1, line: 2 }],
      ['b', { file: 'm.yaml', document: 3, line: 9 }],
    ]);
    expect(notObjects).toEqual([]);
  });

  it("contributes a List's items, each with its index and line, in YAML and JSON", () => {
    const yaml = `apiVersion: v1\nkind: List\nitems:\n  - ${configMap('a').trimEnd().replace(/\n/g, '\n    ')}\n  - just a string\n`;
    const fromYaml = parseManifest('l.yaml', yaml, 'yaml');
    expect(fromYaml.objects.map((o) => o.location)).toEqual([{ file: 'l.yaml', document: 1, line: 4, item: 0 }]);
    expect(fromYaml.notObjects).toEqual([{ file: 'l.yaml', document: 1, line: 8, item: 1 }]);

    const json = JSON.stringify({ apiVersion: 'geo.example.com/v1', kind: 'GeoDatabaseList', items: [{ apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'v1', kind: 'Secret' }] }, null, 2);
    const fromJson = parseManifest('l.json', json, 'json');
    expect(fromJson.objects.map((o) => [o.object.kind, o.location.item, o.location.line])).toEqual([['ConfigMap', 0, 5], ['Secret', 1, 9]]);
  });

  it('counts documents without apiVersion or kind as no objects', () => {
    const { objects, notObjects } = parseManifest('v.yaml', 'replicas: 2\n---\n- a\n---\napiVersion: v1\nkind: ""\n', 'yaml');
    expect(objects).toEqual([]);
    expect(notObjects.map((l) => l.document)).toEqual([1, 2, 3]);
  });

  it.each([
    ['yaml', 'a: 1\nb: [\n  c: d\n', /^x: ?\d+:\d+: not valid YAML: /],
    ['yaml', 'a: 1\na: 2\n', /^x:2:1: not valid YAML: Map keys must be unique$/],
    ['json', '{\n  "a": 1,\n}', /^x:3: not valid JSON: /],
  ] as const)('names the file and line of a %s syntax error', (format, text, message) => {
    const parse = () => parseManifest('x', text, format);
    expect(parse).toThrow(ManifestSyntaxError);
    expect(parse).toThrow(message);
  });
});

describe('manifestFormat', () => {
  it('goes by the extension, and by the first character on standard input', () => {
    expect(manifestFormat('a/b.JSON', '')).toBe('json');
    expect(manifestFormat('a/b.yml', '{}')).toBe('yaml');
    expect(manifestFormat('-', '  {"a": 1}')).toBe('json');
    expect(manifestFormat('-', 'a: 1')).toBe('yaml');
  });
});
