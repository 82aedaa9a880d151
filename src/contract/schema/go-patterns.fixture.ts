import { randomUUID } from 'node:crypto';
import type { ContractDefinition } from '../contract-definition.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

// A catalogue of OpenAPI `pattern`s as kube-apiserver reads them: Go's regexp (RE2 syntax), compiled by the CRD's
// validation and matched with MatchString, a search anywhere in the value. Each pattern is written for a place where
// Go and ECMAScript read the same text differently (or only one of them reads it), and each value to tell the two
// apart there. No expected answer is written down: the API server (or its code, the engine) is the oracle.

export interface GoPatternCase {
  /** What the case is about: the catalogue's sections, counted by the tests. */
  form: string;
  pattern: string;
  /** Values to match against it; none for a pattern the API server refuses. */
  values: readonly string[];
}

const r = String.raw;

/** Whitespace, line terminators and the like: where `\s`, `.` and `$` of the two languages part. */
const spaces = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u2029', '\u3000', '\ufeff', '\u0085'];

export const goPatternCases: readonly GoPatternCase[] = [
  // Perl classes: ASCII in Go; ECMAScript's \s takes every Unicode space.
  { form: 'perl classes', pattern: r`^\s+$`, values: [...spaces, 'a'] },
  { form: 'perl classes', pattern: r`^\S+$`, values: ['\u00a0', '\v', 'a', ' '] },
  { form: 'perl classes', pattern: r`^\d+$`, values: ['0123', '\u0661\u0662', '\uff11', '-1'] },
  { form: 'perl classes', pattern: r`^\w+$`, values: ['a_Z9', 'é', '\u017f', '\u212a', 'a-b'] },
  { form: 'perl classes', pattern: r`(?i)^\w+$`, values: ['ABC', '\u017f', '\u212a'] },
  { form: 'perl classes', pattern: r`\bfoo\b`, values: ['a foo b', 'éfooé', 'foo_', 'xfoo'] },
  { form: 'perl classes', pattern: r`\Bfoo`, values: ['xfoo', ' foo', 'éfoo'] },
  { form: 'perl classes', pattern: r`^[\s\d]+$`, values: ['1 2', '1\u00a02', '\v'] },
  { form: 'perl classes', pattern: r`^[^\s]+$`, values: ['\u00a0', 'ab', '\u2028'] },
  // The dot: Go's stops only at \n; ECMAScript's at \r, \u2028 and \u2029 as well.
  { form: 'dot and newline', pattern: r`^a.b$`, values: ['a\nb', 'a\rb', 'a\u2028b', 'a\u2029b', 'a\u0085b', 'axb'] },
  { form: 'dot and newline', pattern: r`(?s)^a.b$`, values: ['a\nb', 'a\rb'] },
  { form: 'dot and newline', pattern: r`^a(?s:.)b$`, values: ['a\nb', 'axb'] },
  { form: 'dot and newline', pattern: r`^.+$`, values: ['line\nnext', 'x\r', 'x\u2028'] },
  // Anchors: without (?m), ^ and $ are the text's ends; \A and \z always are.
  { form: 'anchors', pattern: r`^a$`, values: ['a', 'a\n', '\na', 'ba'] },
  { form: 'anchors', pattern: r`(?m)^b$`, values: ['a\nb', 'a\nb\nc', 'a\rb', 'a\u2028b', 'ab'] },
  { form: 'anchors', pattern: r`\Aab\z`, values: ['ab', 'ab\n', 'xab'] },
  { form: 'anchors', pattern: r`(?m)\Ab$`, values: ['b\nc', 'a\nb'] },
  { form: 'anchors', pattern: r`a$|^b`, values: ['xa', 'bx', 'x'] },
  // Inline flags, whole-pattern and scoped; ECMAScript has only the scoped ones.
  { form: 'inline flags', pattern: r`(?i)^abc$`, values: ['ABC', 'aBc', 'abd'] },
  { form: 'inline flags', pattern: r`^(?i:k)$`, values: ['K', 'k', '\u212a'] },
  { form: 'inline flags', pattern: r`^a(?i)b$`, values: ['aB', 'AB'] },
  { form: 'inline flags', pattern: r`(?i)^σ+$`, values: ['Σσς', 'S'] },
  { form: 'inline flags', pattern: r`(?U)^a+b$`, values: ['aab', 'b'] },
  { form: 'inline flags', pattern: r`(?i-s)^a.$`, values: ['A\n', 'Ab'] },
  { form: 'inline flags', pattern: r`(?ims)^x.$`, values: ['y\nX\n', 'X\r'] },
  // POSIX classes (Go only; ECMAScript reads the brackets as a class and a stray bracket).
  { form: 'posix classes', pattern: r`^[[:alpha:]]+$`, values: ['abc', 'é', 'a1'] },
  { form: 'posix classes', pattern: r`^[[:^digit:][:space:]]+$`, values: ['a b', '1', '\v', '\u00a0'] },
  { form: 'posix classes', pattern: r`^[[:word:]-]+$`, values: ['a_b-c', 'a.b'] },
  { form: 'posix classes', pattern: r`^[[:upper:]]+$`, values: ['ABC', 'abc'] },
  { form: 'posix classes', pattern: r`(?i)^[[:upper:]]+$`, values: ['abc', '1'] },
  // Unicode classes and scripts: Go's one-letter form and scripts by name; ECMAScript needs braces and Script=.
  { form: 'unicode classes', pattern: r`^\pL+$`, values: ['abc', 'αβγ', '日本', 'a1'] },
  { form: 'unicode classes', pattern: r`^\p{L}+$`, values: ['abc', 'αβγ', 'a1'] },
  { form: 'unicode classes', pattern: r`^\p{Greek}+$`, values: ['αβγ', 'abc'] },
  { form: 'unicode classes', pattern: r`^\P{Latin}+$`, values: ['αβγ', 'abc'] },
  { form: 'unicode classes', pattern: r`^\p{^Greek}+$`, values: ['abc', 'α'] },
  { form: 'unicode classes', pattern: r`^\p{Lu}\pN*$`, values: ['A1', 'a1', 'Ä\u0661'] },
  { form: 'unicode classes', pattern: r`^[\p{Han}\p{Hiragana}]+$`, values: ['日本', 'にほん', 'ニホン'] },
  { form: 'unicode classes', pattern: r`^\pZ$`, values: [' ', '\u00a0', '\u3000', '\t'] },
  // Go looks class names up in a canonical form: any case, `_` and `-` dropped; a script with `_` is then not found.
  { form: 'unicode classes', pattern: r`^\p{greek}+\p{Letter}$`, values: ['αβa', 'αβ1', 'ab'] },
  { form: 'unicode classes', pattern: r`^\pl\p{uppercase_letter}$`, values: ['aB', 'ab'] },
  { form: 'unicode classes', pattern: r`^[\p{^greek}\d]+$`, values: ['a1', 'α'] },
  { form: 'unicode classes', pattern: r`^\p{Any}\p{ascii}\p{Assigned}$`, values: ['😀a!', 'aé!', 'ab\u0378'] },
  // Quoting: \Q...\E takes what it holds literally.
  { form: 'quoting', pattern: r`^\Qa.b*c\E$`, values: ['a.b*c', 'axbbc'] },
  { form: 'quoting', pattern: r`^\Q[x]`, values: ['[x]', 'x'] },
  { form: 'quoting', pattern: r`^\Q\E$`, values: ['', 'a'] },
  // Escaped punctuation: Go takes any ASCII punctuation (Zalando's `\ *`); ECMAScript's unicode mode only syntax
  // characters.
  { form: 'escaped punctuation', pattern: r`^\ *(a|b)\ *$`, values: ['  a ', 'b', ' c '] },
  { form: 'escaped punctuation', pattern: r`^\:\@\#\~\%\"\'\,\=\<\>$`, values: [':@#~%"\',=<>', 'x'] },
  { form: 'escaped punctuation', pattern: r`^\-\/\.\*$`, values: ['-/.*', '-/x*'] },
  { form: 'escaped punctuation', pattern: r`^[\:\-\ ]+$`, values: [': -', 'a'] },
  // Escapes of letters and digits: Go's own (octal, \x{...}) and the ones it refuses.
  { form: 'escapes', pattern: r`^\x41\x{1F600}$`, values: ['A😀', 'A'] },
  { form: 'escapes', pattern: r`^\101$`, values: ['A', '\u0041\u0031'] },
  { form: 'escapes', pattern: r`^\0$`, values: ['\u0000', '0'] },
  { form: 'escapes', pattern: r`^\a\f\t\v$`, values: ['\u0007\f\t\v'] },
  { form: 'escapes', pattern: r`^\n\r$`, values: ['\n\r', 'nr'] },
  // Repetition: counts up to 1000; `{` that is no repetition is a literal.
  { form: 'repetition', pattern: r`^a{2,3}$`, values: ['a', 'aa', 'aaa', 'aaaa'] },
  { form: 'repetition', pattern: r`^a{1000}$`, values: ['a'.repeat(1000), 'a'.repeat(999)] },
  { form: 'repetition', pattern: r`^a{2,}$`, values: ['a', 'aa', 'a'.repeat(20)] },
  { form: 'repetition', pattern: r`^a{,2}$`, values: ['a{,2}', 'aa'] },
  { form: 'repetition', pattern: r`^x{y}$`, values: ['x{y}', 'xy'] },
  { form: 'repetition', pattern: r`^a{0}b$`, values: ['b', 'ab'] },
  { form: 'repetition', pattern: r`^*a$`, values: ['a', '*a'] },
  { form: 'repetition', pattern: r`^(?:a{10}){100}$`, values: ['a'.repeat(1000), 'a'.repeat(990)] },
  { form: 'non-greedy', pattern: r`^a+?b??$`, values: ['aab', 'aa', 'b'] },
  { form: 'non-greedy', pattern: r`^(a*?)(a*)$`, values: ['aaa', 'b'] },
  // Classes: ranges, a dash at either end, negation, a bracket first.
  { form: 'classes', pattern: r`^[a-]+$`, values: ['a-', 'b'] },
  { form: 'classes', pattern: r`^[-a]+$`, values: ['-a', 'b'] },
  { form: 'classes', pattern: r`^[+-.]$`, values: [',', '-', '/'] },
  { form: 'classes', pattern: r`^[a\-z]+$`, values: ['a-z', 'b'] },
  { form: 'classes', pattern: r`^[^a]$`, values: ['\n', 'a', 'b', '😀'] },
  { form: 'classes', pattern: r`^[^\n]+$`, values: ['\r', 'a\nb'] },
  { form: 'classes', pattern: r`^[]a]+$`, values: [']a', 'b'] },
  { form: 'classes', pattern: r`^[^]a]+$`, values: ['b', ']'] },
  { form: 'classes', pattern: r`^[\d-]+$`, values: ['1-2', 'a'] },
  { form: 'classes', pattern: r`^[\w-z]+$`, values: ['-', 'a_z', '.'] },
  { form: 'classes', pattern: r`^[[:x]+$`, values: ['[:x', ']', 'a'] },
  { form: 'classes', pattern: r`(?i)^[a-c]+$`, values: ['ABC', 'd'] },
  { form: 'classes', pattern: r`^[\x{0}-\x{10FFFF}]$`, values: ['😀', 'a'] },
  // Alternation, empty branches, groups.
  { form: 'alternation', pattern: r`^(|a)$`, values: ['', 'a', 'b'] },
  { form: 'alternation', pattern: r`^(a||b)$`, values: ['', 'b', 'c'] },
  { form: 'alternation', pattern: r`^()$`, values: ['', 'a'] },
  { form: 'alternation', pattern: r`|x`, values: ['', 'y'] },
  { form: 'alternation', pattern: r`^(?P<name>a)(?<other>b)$`, values: ['ab', 'a'] },
  { form: 'alternation', pattern: r`^(?:a|ab)(?:c|bcd)$`, values: ['abcd', 'ac'] },
  // A name twice: Go takes it (names decide nothing a match does).
  { form: 'alternation', pattern: r`^(?P<x>a)$|^(?P<x>b)$`, values: ['a', 'b', 'c'] },
  { form: 'alternation', pattern: r`^[(?P<x>)]+\Q(?P<x>\E(?P<x>y)$`, values: ['(?<x>)(?P<x>y', 'y'] },
  // Astral characters: one rune in Go, two UTF-16 units in JavaScript strings.
  { form: 'astral characters', pattern: r`^.$`, values: ['😀', 'a', '😀😀', 'é'] },
  { form: 'astral characters', pattern: r`^.{2}$`, values: ['😀', '😀a', 'ab'] },
  { form: 'astral characters', pattern: r`^[😀-😂]+$`, values: ['😁', '😃', 'a'] },
  { form: 'astral characters', pattern: r`^😀+$`, values: ['😀😀', '😀\ude00'] },
  { form: 'astral characters', pattern: r`^[^a]{2}$`, values: ['😀', '😀😀'] },
  { form: 'astral characters', pattern: r`^\x{FFFD}$`, values: ['\ufffd', '\ud800'] },
  // Patterns controller-gen and operators ship.
  {
    form: 'real patterns',
    pattern: r`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
    values: ['1Gi', '500m', '1e3', '1 Gi', '.5'],
  },
  {
    form: 'real patterns',
    pattern: r`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
    values: ['db.example.com', 'Db', '-a'],
  },
  {
    form: 'real patterns',
    pattern: r`^\ *((Mon|Tue|Wed|Thu|Fri|Sat|Sun),?)+\ *$`,
    values: ['Mon,Tue', ' Sun ', 'mon'],
  },
  {
    form: 'real patterns',
    pattern: r`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`,
    values: ['1h30m', '1.5s', '1d'],
  },

  // Patterns the API server refuses (`must be a valid regular expression, but isn't`): ECMAScript-only syntax,
  // escapes Go does not know, limits.
  { form: 'refused', pattern: r`^(?=a)a$`, values: [] },
  { form: 'refused', pattern: r`^(?!a).$`, values: [] },
  { form: 'refused', pattern: r`(?<=a)b`, values: [] },
  { form: 'refused', pattern: r`(?<!a)b`, values: [] },
  { form: 'refused', pattern: r`^(a)\1$`, values: [] },
  { form: 'refused', pattern: r`^(?<n>a)\k<n>$`, values: [] },
  { form: 'refused', pattern: r`^\u0041$`, values: [] },
  { form: 'refused', pattern: r`^\u{1F600}$`, values: [] },
  { form: 'refused', pattern: r`^\cA$`, values: [] },
  { form: 'refused', pattern: r`^\8$`, values: [] },
  { form: 'refused', pattern: r`^\e$`, values: [] },
  { form: 'refused', pattern: r`^\Z$`, values: [] },
  { form: 'refused', pattern: r`^\C$`, values: [] },
  { form: 'refused', pattern: r`^\i$`, values: [] },
  { form: 'refused', pattern: r`^a{1001}$`, values: [] },
  { form: 'refused', pattern: r`^a{2,1}$`, values: [] },
  { form: 'refused', pattern: r`^(?:a{1000}){1000}$`, values: [] },
  { form: 'refused', pattern: r`^a**$`, values: [] },
  { form: 'refused', pattern: r`^[z-a]$`, values: [] },
  { form: 'refused', pattern: r`^[a$`, values: [] },
  { form: 'refused', pattern: r`^(a$`, values: [] },
  { form: 'refused', pattern: r`^a)$`, values: [] },
  { form: 'refused', pattern: r`(?x)a b`, values: [] },
  { form: 'refused', pattern: r`\p{Script=Greek}`, values: [] },
  { form: 'refused', pattern: r`\p{Klingon}`, values: [] },
  { form: 'refused', pattern: r`\p{Old_Italic}`, values: [] },
  { form: 'refused', pattern: r`\p{SignWriting}`, values: [] },
  { form: 'refused', pattern: r`\p{Garay}`, values: [] },
  { form: 'refused', pattern: r`(?P<a-b>x)`, values: [] },
  // Errors that quote the whole pattern, of one crdgate rewrites for re2js (a name, a class name).
  { form: 'refused', pattern: r`(?P<a>x)\p{greek}(`, values: [] },
  { form: 'refused', pattern: r`(?<a>x)(?<a>y))`, values: [] },
  { form: 'refused', pattern: r`[[:alpha:]`, values: [] },
  { form: 'refused', pattern: r`[[:foo:]]`, values: [] },
  { form: 'refused', pattern: r`a[[:x-`, values: [] },
  { form: 'refused', pattern: 'a\\', values: [] },
  { form: 'refused', pattern: `${'('.repeat(1001)}a${')'.repeat(1001)}`, values: [] },
];

/** The field of the catalogue's `index`th case, under spec. */
export function patternField(index: number): string {
  return `p${index}`;
}

/** A spec with a string field per case, each with the case's pattern: the catalogue as one schema. */
export function patternsSchema(cases: readonly GoPatternCase[]): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: Object.fromEntries(
          cases.map((testCase, index) => [patternField(index), { type: 'string', pattern: testCase.pattern }]),
        ),
      },
    },
  };
}

/** One (pattern, value) pair, at its field. */
export interface PatternValue {
  testCase: GoPatternCase;
  field: string;
  value: string;
}

/**
 * The specs that put every value of every case to its pattern in few objects: the `n`th spec sets each case's `n`th
 * value at the case's field, so that one request answers for a pattern per field.
 */
export function patternValueSpecs(
  cases: readonly GoPatternCase[],
): Array<{ spec: Record<string, string>; pairs: PatternValue[] }> {
  const most = Math.max(0, ...cases.map((testCase) => testCase.values.length));
  return Array.from({ length: most }, (_, n) => {
    const pairs = cases.flatMap((testCase, index) =>
      n < testCase.values.length ? [{ testCase, field: patternField(index), value: testCase.values[n]! }] : [],
    );
    return { spec: Object.fromEntries(pairs.map((pair) => [pair.field, pair.value])), pairs };
  });
}

/** The contract of the catalogue's schema, kind Patterned, in `group`. */
export function patternsDefinition(group: string, cases: readonly GoPatternCase[]): ContractDefinition {
  return {
    identity: { group, kind: 'Patterned', plural: 'patterneds', singular: 'patterned', scope: 'Namespaced' },
    versions: [{ name: 'v1', served: true, storage: true, schema: patternsSchema(cases) }],
    hub: 'v1',
    conversions: {},
  };
}

/** The same as a CRD written by hand (defineContract refuses the patterns the API server refuses). */
export function patternsCrd(group: string, cases: readonly GoPatternCase[]): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `patterneds.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: 'Patterned', plural: 'patterneds', singular: 'patterned', listKind: 'PatternedList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: patternsSchema(cases) } }],
    },
  };
}

/** A problem with the CRD, `field: message`, from the schema's root as crdgate's structural check names it. */
export function fromSchemaRoot(field: string, message: string): string {
  return `${field.replace(/^spec\.(validation|versions\[0\]\.schema)\./, '')}: ${message}`;
}

/** The index of the case whose field a problem with the schema names. */
export function caseIndexOf(problem: string): number {
  return Number(/properties\[p(\d+)\]/.exec(problem)?.[1] ?? NaN);
}

/**
 * Where crdgate's answers (`field -> message`, undefined when allowed) differ from the API server's on a batch. A
 * message naming a value longer than crdgate quotes (64 characters, describe-value.ts: what clients send is
 * shortened) is compared from the field on: the API server quotes the value whole. With `listedOnly`, only the
 * fields crdgate lists (a webhook answer lists its first causes).
 */
export function patternDisagreements(
  batch: readonly PatternValue[],
  apiServer: ReadonlyMap<string, string>,
  crdgate: ReadonlyMap<string, string>,
  options: { side: string; listedOnly?: boolean },
): string[] {
  const found: string[] = [];
  for (const { testCase, field, value } of batch) {
    const path = `spec.${field}`;
    const shown = (message: string | undefined) =>
      message === undefined
        ? 'allowed'
        : value.length > 60
          ? message.slice(message.indexOf(`: ${path} in body should match`))
          : message;
    if (options.listedOnly && !crdgate.has(path)) continue;
    if (shown(crdgate.get(path)) !== shown(apiServer.get(path)))
      found.push(
        `${options.side}: ${JSON.stringify(testCase.pattern).slice(0, 100)} on ${JSON.stringify(value).slice(0, 40)}: API server ${shown(apiServer.get(path))}; crdgate ${shown(crdgate.get(path))}`,
      );
  }
  return found;
}

/** Whether ECMAScript's reading (what crdgate used before) answers otherwise than Go's on a pair, or not at all. */
export function ecmaScriptDiffers(pattern: string, value: string, goMatches: boolean): boolean {
  try {
    return new RegExp(pattern, 'u').test(value) !== goMatches;
  } catch {
    return true;
  }
}

/** What the pairs of the catalogue came to, for the counts a test prints and holds to floors. */
export class PatternValueTally {
  private pairs = 0;
  private refused = 0;
  private ecmaScriptWouldDiffer = 0;

  /** The pairs of one object, and the fields the API server refused in it. */
  add(batch: readonly PatternValue[], refusedFields: ReadonlyMap<string, unknown>): void {
    this.pairs += batch.length;
    for (const { testCase, field, value } of batch) {
      const refusedHere = refusedFields.has(`spec.${field}`);
      if (refusedHere) this.refused++;
      if (ecmaScriptDiffers(testCase.pattern, value, !refusedHere)) this.ecmaScriptWouldDiffer++;
    }
  }

  counts(): Record<string, number> {
    return {
      pairs: this.pairs,
      refused: this.refused,
      allowed: this.pairs - this.refused,
      'ECMAScript would differ': this.ecmaScriptWouldDiffer,
    };
  }
}

/** The floors on PatternValueTally's counts: a little under what a run gives today (262 pairs: 110 refused, 152
 * allowed; ECMAScript would answer 137 otherwise). */
export const patternValueFloors = { pairs: 245, refused: 100, allowed: 140, 'ECMAScript would differ': 125 };

/** A CREATE of `object` as the API server sends it to the validating webhook. */
export function patternedReview(group: string, object: Record<string, unknown>): unknown {
  const kind = { group, version: 'v1', kind: 'Patterned' };
  const resource = { group, version: 'v1', resource: 'patterneds' };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind,
      requestKind: kind,
      resource,
      requestResource: resource,
      name: 'patterned',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'tester' },
      object,
      oldObject: null,
      dryRun: true,
    },
  };
}

/** Field errors or causes as `field -> message`. */
export function messagesByField(errors: ReadonlyArray<{ field: string; message: string }>): Map<string, string> {
  return new Map(errors.map((error) => [error.field, error.message]));
}
