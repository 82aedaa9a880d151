import { describe, expect, it } from 'vitest';
import { manifestFormat, parseManifest } from './manifest-documents.ts';

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe('parseManifest', () => {
  it('reads every document of a YAML stream, with its number and first line, and counts the empty ones', () => {
    const text = `# leading comment\n${configMap('a')}---\n# only a comment\n---\n${configMap('b')}---\n---\n${configMap('c')}---\n`;
    const { objects, notObjects, empty, invalid } = parseManifest('m.yaml', text, 'yaml');
    expect(objects.map((o) => [o.object.metadata?.name, o.location])).toEqual([
      ['a', { file: 'm.yaml', document: 1, line: 2 }],
      ['b', { file: 'm.yaml', document: 3, line: 9 }],
      ['c', { file: 'm.yaml', document: 5, line: 15 }],
    ]);
    // The trailing `---` ends the stream: no document of its own.
    expect(empty).toEqual([
      { location: { file: 'm.yaml', document: 2, line: 6 }, reason: 'COMMENTS_ONLY' },
      { location: { file: 'm.yaml', document: 4, line: 13 }, reason: 'EMPTY_DOCUMENT' },
    ]);
    expect([notObjects, invalid]).toEqual([[], []]);
  });

  it.each([
    ['yaml', '', 'EMPTY_FILE'],
    ['yaml', ' \n\n', 'EMPTY_FILE'],
    ['json', '\n', 'EMPTY_FILE'],
    ['yaml', '# nothing rendered\n', 'COMMENTS_ONLY'],
    ['yaml', '---\n', 'EMPTY_DOCUMENT'],
    ['yaml', 'apiVersion: v1\nkind: List\nitems: []\n', 'EMPTY_LIST'],
    ['json', '{"apiVersion": "v1", "kind": "List", "items": []}', 'EMPTY_LIST'],
  ] as const)('counts a %s file %j as empty (%s), with no object', (format, text, reason) => {
    expect(parseManifest('e', text, format)).toEqual({
      objects: [],
      notObjects: [],
      invalid: [],
      empty: [{ location: { file: 'e', document: 1, line: 1 }, reason }],
    });
  });

  it("contributes a List's items, each with its index and line, in YAML and JSON", () => {
    const yaml = `apiVersion: v1\nkind: List\nitems:\n  - ${configMap('a').trimEnd().replace(/\n/g, '\n    ')}\n  - just a string\n`;
    const fromYaml = parseManifest('l.yaml', yaml, 'yaml');
    expect(fromYaml.objects.map((o) => o.location)).toEqual([{ file: 'l.yaml', document: 1, line: 4, item: 0 }]);
    expect(fromYaml.notObjects).toEqual([{ file: 'l.yaml', document: 1, line: 8, item: 1 }]);

    const json = JSON.stringify(
      {
        apiVersion: 'geo.example.com/v1',
        kind: 'GeoDatabaseList',
        items: [
          { apiVersion: 'v1', kind: 'ConfigMap' },
          { apiVersion: 'v1', kind: 'Secret' },
        ],
      },
      null,
      2,
    );
    const fromJson = parseManifest('l.json', json, 'json');
    expect(fromJson.objects.map((o) => [o.object.kind, o.location.item, o.location.line])).toEqual([
      ['ConfigMap', 0, 5],
      ['Secret', 1, 9],
    ]);
  });

  it('counts documents without apiVersion or kind as no objects', () => {
    const { objects, notObjects } = parseManifest(
      'v.yaml',
      'replicas: 2\n---\n- a\n---\napiVersion: v1\nkind: ""\n',
      'yaml',
    );
    expect(objects).toEqual([]);
    expect(notObjects.map((l) => l.document)).toEqual([1, 2, 3]);
  });

  it.each([
    ['yaml', 'a: 1\na: 2\n', 'MANIFEST_NOT_YAML', { line: 2, column: 1 }],
    ['yaml', 'a:\n\tb: 1\n', 'MANIFEST_NOT_YAML', { line: 2, column: 1 }],
    ['yaml', 'a: 1\nb: [\n  c: d\n', 'MANIFEST_NOT_YAML', { line: expect.any(Number), column: expect.any(Number) }],
    ['json', '{\n  "a": 1,\n}', 'MANIFEST_NOT_JSON', { line: 3, column: 1 }],
    ['json', '{\n  "a": ', 'MANIFEST_NOT_JSON', { line: 2, column: expect.any(Number) }],
  ] as const)(
    'reports a %s syntax error with its code, line and column, and no objects from it',
    (format, text, code, position) => {
      const { objects, invalid } = parseManifest('x', text, format);
      expect(objects).toEqual([]);
      expect(invalid).toEqual([
        { location: { file: 'x', document: 1, ...position }, code, message: expect.any(String) },
      ]);
      // The position is in the location, not repeated in the message.
      expect(invalid[0]!.message).not.toMatch(/line \d|position \d|^$/);
    },
  );

  it("reads a YAML file's other documents when one is not valid", () => {
    const { objects, invalid } = parseManifest(
      'x.yaml',
      `${configMap('a')}---\nkind: x\nkind: y\n---\n${configMap('b')}`,
      'yaml',
    );
    expect(objects.map((o) => [o.object.metadata?.name, o.location.document])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    expect(invalid.map((i) => [i.location.document, i.location.line, i.code])).toEqual([[2, 7, 'MANIFEST_NOT_YAML']]);
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
