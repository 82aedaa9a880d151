import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { readCorpusFile } from '../../test/fixtures/crd-corpus/corpus.ts';
import { blockYamlRefusal, readBlockYaml } from './block-yaml.ts';

// The oracle is the `yaml` package, read as readCrdFile reads it: every expected value here is computed by it.
function yamlReading(text: string): { clean: boolean; values: unknown[] } {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [documents];
  return {
    clean: list.every((document) => document.errors.length === 0 && document.warnings.length === 0),
    values: list.map((document) => document.toJS({ maxAliasCount: 100 }) as unknown),
  };
}

// What toStrictEqual does not compare: the order of keys, and -0 against 0.
const exactly = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) => (Object.is(inner, -0) ? '(minus zero)' : inner));

/** Whether the block reader accepts `text`; where it does, its documents must be `yaml`'s, and `yaml` clean. */
function acceptedAndAgreeing(text: string, name: string): boolean {
  const fast = readBlockYaml(text);
  if (fast === undefined) return false;
  const slow = yamlReading(text);
  expect(slow.clean, `${name}: yaml reports errors or warnings on a text the block reader accepted`).toBe(true);
  expect(exactly(fast), name).toBe(exactly(slow.values));
  expect(fast, name).toStrictEqual(slow.values);
  return true;
}

const readsLikeYaml: [string, string][] = [
  ['double-quoted escapes', 'a: "tab\\tq\\"b\\\\s\\/e\\u00e9\\x41\\U0001F600\\ \\N\\_\\0\\e"\nb: "x"\n'],
  ['# inside quotes', "a: \"# not a comment\" # a comment\nb: 'it''s # not one either'\nc: x#y\n"],
  ["key: 'a: b'", 'key: \'a: b\'\nother: "c: d"\n'],
  ['literal block, each chomping', 'a: |\n  x\n\n  y\n\n\nb: |-\n  x\n\nc: |+\n  x\n\n\nd: 1\n'],
  ['keep chomping at the end with a line break', 'a: |+\n  x\n\n'],
  ['keep chomping at the end without one', 'a: |+\n  x'],
  ['clip at the end without a line break', 'a: |\n  x'],
  ['keep chomping before a comment', 'a: |+\n  x\n\n# c\nb: 1\n'],
  ['keep chomping before a document', 'a: |+\n  x\n\n---\nb: 1\n'],
  ['literal block with leading empty lines', 'a: |\n\n  \n  x\n'],
  ['literal block with more-indented lines', 'a: |\n  x\n    y\n      \n  z\n'],
  ['literal block holding # and ---', 'a: |\n  # not a comment\n  ---\n  b: c\n'],
  ['block header comment', 'a: | # c\n  x\nb: >- # c\n  y\n'],
  ['folded block', 'a: >\n  x\n  y\n\n  z\n    more\n    indented\n  w\n\n\n  v\n'],
  ['folded block, strip and keep', 'a: >-\n  x\n  y\nb: >+\n  x\n\n  y\n\n'],
  ['block scalars in sequences', '- |\n x\n- >\n  y\n  z\n- - |\n    w\n'],
  ['block scalar in a compact mapping', '- a: |\n    x\n  b: 1\n'],
  ['keys that look like numbers and booleans', 'true: 1\n1.0: 2\n010: 3\n-0: 4\n1e3: 5\nFalse: 6\n'],
  ['a null key', 'null: 1\n'],
  [
    'yes/no/on/off and numbers',
    'a: yes\nb: no\nc: on\nd: off\ne: 1.0\nf: -0\ng: "010"\nh: 010\ni: +5\nj: .5\nk: 1.\nl: 1e3\nm: -1.5e-3\n',
  ],
  [
    'strings that are almost numbers',
    'a: 0o17x\nb: 0x1g\nc: 1_000\nd: 12:30\ne: 2024-01-01\nf: 1.2.3\ng: 0X1F\nh: .info\n',
  ],
  ['null forms and booleans', 'a: ~\nb: Null\nc: NULL\nd: TRUE\ne: True\nf: nULL\ng: tRUE\n'],
  ['empty values', 'a:\nb: \nc: # c\nd:\n'],
  ['empty flow collections', 'a: {}\nb: []\nc: [] # c\n'],
  ['nested sequences', '- - x\n  - y\n- z\n- - - w\n'],
  ['comments at odd indentation', 'a:\n    # c\n  b: 1\n # d\n  c: 2\n# e\n      # f\nd: 3\n'],
  ['sequences without indentation', 'a:\n- x\n- y: 1\n  z: 2\n- - w\nb: 1\n'],
  ['compact mappings', '- a: 1\n  b: 2\n-   c: 3\n    d:\n    - e\n    f: 4\n'],
  ['sequence entries without a value', '-\n- \n- # c\n-\n  a: 1\n'],
  ['quoted keys', '"a b": 1\n\'c\': 2\n"": 3\n"d\\te": 4\n'],
  ['keys in numeric order', 'b: 1\n2: x\na: 3\n1: y\n'],
  ['dashes in plain scalars', 'a: ---\nb: --\nc: -1\nd: -x\ne: a - b\n'],
  ['non-ASCII text', 'a: héllo wörld ✓ 😀\nb: "ü\\u00fc"\n'],
  ['a mapping indented at the root', '  a: 1\n  b:\n    c: 2\n'],
  ['flow indicators inside plain scalars', 'a: ^[a-z]+(,[0-9]*)?{1}$\nb: x]\nc: a, b\n'],
  ['multi-line plain scalars', 'a: x\n  y\n\n  z\n\n\n  w\nb: 1\n'],
  ['multi-line plain scalar in a sequence', '- x\n  y\n- z\n'],
  ['continuation lines starting with indicators', 'a: x\n  - y\n  "z"\n  &w *v !t |p >q [r] {s} `u` \'t\n'],
  ['scalars on the line after their key', 'a:\n  long text\n  more\nb:\n  "quoted\n  text"\nc:\n  \'single\'\n'],
  ['multi-line single-quoted', "a: 'x\n  y\n\n  z '\nb: 'it''s\n  '\n"],
  ['multi-line double-quoted', 'a: "x\\\n   y\n  z\n\n  w  "\nb: "p  \n  q"\n'],
  ['no documents', ''],
  ['only comments', '# only\n  # comments\n'],
  ['an empty document', '---\n'],
  ['empty documents between markers', '---\n# c\n---\na: 1\n---\n'],
  ['a comment before the first marker', '# c\n---\na: 1\n'],
  ['a marker with a comment', '--- # c\na: 1\n'],
  ['documents without markers at the start', 'a: 1\n---\nb: 2'],
  ['a sequence at the root', '- 1\n- "2"\n- three\n'],
];

const givesUp: [string, string][] = [
  ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
  ['a tag', 'a: !!str 1\n'],
  ['a complex key', '? a\n: b\n'],
  ['a flow mapping with content', 'a: {b: 1}\n'],
  ['a flow sequence with content', 'a: [1, 2]\n'],
  ['a duplicate key', 'a: 1\na: 2\n'],
  ['keys equal as numbers', '1: a\n01: b\n'],
  ['keys equal as null', 'null: a\n~: b\n'],
  ['__proto__', '__proto__: 1\n'],
  ['a directive', '%YAML 1.2\n---\na: 1\n'],
  ['a document end marker', 'a: 1\n...\n'],
  ['content on the marker line', '--- a: 1\n'],
  ['a BOM', '\ufeffa: 1\n'],
  ['CRLF line ends', 'a: 1\r\nb: 2\r\n'],
  ['a tab in indentation', 'a:\n\t- 1\n'],
  ['a tab after a key', 'a:\t1\n'],
  ['octal', 'a: 0o17\n'],
  ['hexadecimal', 'a: 0x1F\n'],
  ['infinity', 'a: .inf\n'],
  ['not a number', 'a: .nan\n'],
  ['an integer beyond 2^53', 'a: 12345678901234567890\n'],
  ['an explicit indentation indicator', 'a: |2\n   x\n'],
  ['an empty block scalar', 'a: |\nb: 1\n'],
  ['a more-indented leading empty line', 'a: |\n    \n  x\n'],
  ['a mapping in a plain scalar', 'a: b: c\n'],
  ['content after a quoted scalar', 'a: "x" y\n'],
  ['an unterminated quote', 'a: "x\nb: 1\n'],
  ['a reserved indicator', 'a: @x\n'],
  ['a backquote', 'a: `x`\n'],
  ['a sequence entry after a mapping', 'a: 1\n- b\n'],
  ['a key indented deeper than its mapping', 'a: 1\n  b: 2\n'],
  ['a plain scalar where a key belongs', 'a\nb: 1\n'],
  ['a scalar at the root', 'just text\n'],
  ['a comment after a plain scalar continued', 'a: x # c\n  y\n'],
  ['a space before the colon', 'a : 1\n'],
  ['a key longer than yaml allows', `${'k'.repeat(1100)}: 1\n`],
];

describe('readBlockYaml', () => {
  it.each(readsLikeYaml)('reads %s as yaml does', (name, text) => {
    expect(acceptedAndAgreeing(text, name), `${name}: refused (${blockYamlRefusal(text)})`).toBe(true);
  });

  it.each(givesUp)('gives up on %s', (_name, text) => {
    expect(readBlockYaml(text)).toBeUndefined();
  });

  it('reads what yaml.stringify writes as yaml reads it, and accepts most of it', () => {
    const tricky = fc.string({ unit: fc.constantFrom(...'ab :#-\'"\\\n|>{}[],&*!?%@`~019.eE+ ü\t'.split('')) });
    const scalar = fc.oneof(
      tricky,
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, scalar, tie('list'), tie('object')),
      list: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(fc.oneof(tricky, fc.string()), tie('value'), { maxKeys: 4 }),
    }));
    const root = fc.oneof(fc.array(value, { maxLength: 4 }), fc.dictionary(fc.oneof(tricky, fc.string()), value));
    let runs = 0;
    let accepted = 0;
    fc.assert(
      fc.property(root, (drawn) => {
        const text = stringify(drawn);
        runs += 1;
        if (acceptedAndAgreeing(text, text)) accepted += 1;
      }),
      { numRuns: 500 },
    );
    console.log(`block YAML reader: accepted ${accepted} of ${runs} texts yaml.stringify wrote`);
    expect(accepted / runs).toBeGreaterThan(0.5);
  });
});

// The corpus of real CRDs (test/fixtures/crd-corpus/): every CRD's text as its project publishes it, each release of
// the release series, and the projects' sample files. The CRDs above 100 KB (a seventh of them, 63 of the 70 MB)
// take `yaml` a minute on a busy machine: CRDGATE_BLOCK_YAML_ALL=1 reads them too.
describe('readBlockYaml on the CRD corpus', () => {
  const stored = readCorpusFile();
  const crdTexts = new Set([
    ...stored.crds.map((crd) => crd.text),
    ...stored.releaseSeries.flatMap((series) => series.releases.map((release) => release.crd.text)),
  ]);
  const all = process.env['CRDGATE_BLOCK_YAML_ALL'] === '1';
  const textsOf = (refs: Iterable<string>) =>
    [...refs].map((ref) => [ref, stored.texts[ref]!] as const).filter(([, text]) => all || text.length <= 100_000);

  const acceptance = (texts: (readonly [string, string])[], what: string): number => {
    const accepted = texts.filter(([ref, text]) => acceptedAndAgreeing(text, ref)).length;
    console.log(`block YAML reader: accepted ${accepted} of ${texts.length} ${what}`);
    return accepted / texts.length;
  };

  it(
    'reads the CRDs it accepts as yaml does, and accepts nearly all of them',
    () => {
      const texts = textsOf(crdTexts);
      expect(texts.length).toBeGreaterThan(250);
      expect(acceptance(texts, 'CRD texts of the corpus')).toBeGreaterThan(0.95);
    },
    all ? 300_000 : undefined,
  );

  it('reads the sample files it accepts as yaml does, and accepts most of them', () => {
    const texts = textsOf(Object.keys(stored.texts).filter((ref) => !crdTexts.has(ref)));
    expect(acceptance(texts, 'sample files of the corpus')).toBeGreaterThan(0.7);
  });

  // A folder of CRDs as CRDGATE_CRD_CORPUS names one (docs/development.md): DIR/<name>/crd.yaml and samples/*.yaml.
  // Only when it is named (never a skipped test, which CI counts as not run).
  const outside = process.env['CRDGATE_CRD_CORPUS'];
  if (outside !== undefined)
    it('reads the CRDs of CRDGATE_CRD_CORPUS it accepts as yaml does', () => {
      const files = readdirSync(outside, { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.ya?ml$/.test(file))
        .map((file) => [file, readFileSync(join(outside, file), 'utf8')] as const);
      expect(files.length).toBeGreaterThan(0);
      const crds = files.filter(([file]) => file.endsWith('crd.yaml'));
      acceptance(crds, `CRDs of ${outside}`);
      acceptance(files, `YAML files of ${outside}`);
    });
});
