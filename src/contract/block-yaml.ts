/**
 * A reader for the block-style YAML that CRD generators write (controller-gen, kubebuilder, rendered Helm charts):
 * block mappings and sequences, plain and quoted scalars (over several lines too, folded as `yaml` folds them),
 * literal and folded block scalars, comments and `---` between documents. It exists because the `yaml` package
 * spent most of `crdgate serve`'s start-up parsing large CRDs; this reader takes a few percent of that time.
 *
 * Exactness is the contract: for every text it accepts, the documents are what
 * `yaml.parseAllDocuments(text).map((d) => d.toJS())` gives (same key order, types and strings), and it accepts no
 * text on which `yaml` reports an error. Anything it does not read exactly (anchors, tags, flow collections with
 * content, explicit indentation indicators, tabs in indentation, CR line ends, duplicate keys, octal or hex
 * numbers, integers beyond 2^53...) makes it give up, and the caller parses the text with `yaml` instead.
 */

/** Thrown inside the reader when the text leaves the subset; never escapes {@link readBlockYaml}. */
class OutsideSubset extends Error {}

const outside = (why: string): never => {
  throw new OutsideSubset(why);
};

// Characters `yaml` treats as line breaks, byte-order marks or non-printable, or that JavaScript's string functions
// treat as whitespace where YAML does not: wherever they are, the text is left to `yaml`.
const unhandledCharacter = /[\r\0-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029\ufeff\ufffe\uffff]/;

// The YAML 1.2 core schema's plain-scalar tests, as the `yaml` package writes them (schema/core/*.js).
const intPattern = /^[-+]?[0-9]+$/;
const intOctPattern = /^0o[0-7]+$/;
const intHexPattern = /^0x[0-9a-fA-F]+$/;
const floatNaNPattern = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const floatExpPattern = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const floatPattern = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const hexDigits = /^[0-9a-fA-F]+$/;

// An integer of up to 15 digits is below 2^53, so parseInt (what `yaml` calls) reads it exactly.
const MAX_INT_DIGITS = 15;
// `yaml` refuses implicit keys longer than 1024 characters.
const MAX_KEY_LENGTH = 1000;

const SPACE = 0x20;
const TAB = 0x09;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BACKSLASH = 0x5c;

const escapes: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};
const escapeLengths: Record<string, number> = { x: 2, u: 4, U: 8 };

/**
 * The documents of `text` when it is block-style YAML this reader reads exactly (see the file's comment), else
 * `undefined`: parse it with the `yaml` package then.
 */
export function readBlockYaml(text: string): unknown[] | undefined {
  const read = readOrRefuse(text);
  return typeof read === 'string' ? undefined : read;
}

/** Why {@link readBlockYaml} gives up on `text`, or `undefined` when it does not: for measuring how often, and on what. */
export function blockYamlRefusal(text: string): string | undefined {
  const read = readOrRefuse(text);
  return typeof read === 'string' ? read : undefined;
}

function readOrRefuse(text: string): unknown[] | string {
  try {
    return new BlockYamlReader(text).documents().map(detached);
  } catch (error) {
    if (error instanceof OutsideSubset) return error.message;
    throw error;
  }
}

/**
 * The value with every string of it its own: V8 makes a slice of a long string a view of it, so the documents'
 * strings (a CRD's descriptions) would hold the whole text (megabytes for an operator's CRD) for as long as the
 * contract lives. A string copied through a concatenation is flattened into one of its own.
 */
function detached(value: unknown): unknown {
  if (typeof value === 'string') return value.length < 13 ? value : (' ' + value).slice(1);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = detached(value[i]);
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = detached(object[key]);
  }
  return value;
}

const spacesAt = (line: string, from: number): number => {
  let end = from;
  while (line.charCodeAt(end) === SPACE) end += 1;
  return end;
};

/** Whether the line is `---` (optionally followed by a comment); other lines starting `---` or `...` give up. */
const isDocumentStart = (line: string): boolean => {
  const dashes = line.startsWith('---');
  if (!dashes && !line.startsWith('...')) return false;
  if (!dashes || (line.length > 3 && line.charCodeAt(3) !== SPACE)) return outside(`line ${JSON.stringify(line)}`);
  const rest = spacesAt(line, 3);
  if (rest < line.length && line.charCodeAt(rest) !== HASH) outside('content after ---');
  return true;
};

const isSequenceEntry = (line: string, column: number): boolean =>
  line.charCodeAt(column) === DASH && (column + 1 === line.length || line.charCodeAt(column + 1) === SPACE);

/** What a plain scalar resolves to under the core schema, as `yaml` resolves it. */
function plainValue(raw: string): unknown {
  switch (raw) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
  }
  const first = raw.charCodeAt(0);
  const numeric = (first >= 0x30 && first <= 0x39) || first === 0x2b || first === DASH || first === 0x2e;
  if (!numeric) return raw;
  if (intPattern.test(raw)) {
    const digits = first >= 0x30 && first <= 0x39 ? raw.length : raw.length - 1;
    return digits > MAX_INT_DIGITS ? outside(`integer ${raw}`) : parseInt(raw, 10);
  }
  if (intOctPattern.test(raw) || intHexPattern.test(raw) || floatNaNPattern.test(raw)) return outside(`number ${raw}`);
  if (floatPattern.test(raw) || floatExpPattern.test(raw)) return parseFloat(raw);
  return raw;
}

// YAML trims spaces (and tabs, which this reader refuses there), not everything String.trim calls white space.
function withoutSpacesAtEnd(text: string): string {
  let end = text.length;
  while (text.charCodeAt(end - 1) === SPACE) end -= 1;
  return text.slice(0, end);
}

/** A plain scalar's line, without the spaces that end it; gives up where it would hold a mapping. */
function plainLine(text: string): string {
  const raw = withoutSpacesAtEnd(text);
  if (raw.includes(': ') || raw.endsWith(':')) outside('a mapping inside a plain scalar');
  return raw;
}

/**
 * The lines of a multi-line plain or quoted scalar folded as `yaml` folds them (its unfoldLines): a line break
 * between two lines becomes a space, and n empty lines n line breaks. The first segment has no leading spaces and
 * the last no trailing ones to trim in a plain scalar; in a quoted one they are the text after and before the quotes.
 */
function unfold(segments: string[]): string {
  if (segments.length === 1) return segments[0]!;
  let folded = withoutSpacesAtEnd(segments[0]!);
  let separator = ' ';
  for (let i = 1; i < segments.length - 1; i += 1) {
    const line = segments[i]!.slice(spacesAt(segments[i]!, 0));
    const trimmed = withoutSpacesAtEnd(line);
    if (trimmed === '') {
      if (separator === '\n') folded += separator;
      else separator = '\n';
    } else {
      folded += separator + trimmed;
      separator = ' ';
    }
  }
  const last = segments.at(-1)!;
  return folded + separator + last.slice(spacesAt(last, 0));
}

/** The `"` that closes a double-quoted scalar (not escaped by an odd number of backslashes), from `from`; -1 if none. */
function closingDoubleQuote(line: string, from: number): number {
  let quote = line.indexOf('"', from);
  while (quote !== -1) {
    let backslashes = 0;
    while (line.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = line.indexOf('"', quote + 1);
  }
  return -1;
}

/**
 * The text of a double-quoted scalar, from what is between its quotes, as `yaml`'s doubleQuotedValue reads it:
 * escapes; a line break folded to a space, or n empty lines to n line breaks, with the spaces around it dropped;
 * an escaped line break dropped with the next line's leading spaces. An escape `yaml` reports as invalid gives up.
 */
function doubleQuotedText(source: string): string {
  let text = '';
  for (let i = 0; i < source.length; i += 1) {
    const character = source[i]!;
    if (character === '\n') {
      let breaks = '';
      while (source[i + 1] === ' ' || source[i + 1] === '\n') {
        if (source[i + 1] === '\n') breaks += '\n';
        i += 1;
      }
      text += breaks === '' ? ' ' : breaks;
    } else if (character === '\\') {
      const escape = source[i + 1];
      i += 1;
      const simple = escape === undefined ? undefined : escapes[escape];
      if (simple !== undefined) text += simple;
      else if (escape === '\n') {
        while (source[i + 1] === ' ') i += 1;
      } else {
        const length = (escape === undefined ? undefined : escapeLengths[escape]) ?? outside(`escape \\${escape}`);
        const digits = source.slice(i + 1, i + 1 + length);
        const code = digits.length === length && hexDigits.test(digits) ? parseInt(digits, 16) : -1;
        if (code < 0 || code > 0x10ffff) outside(`escape \\${escape}${digits}`);
        text += String.fromCodePoint(code);
        i += length;
      }
    } else if (character === ' ' || character === '\t') {
      let end = i;
      while (source[end + 1] === ' ' || source[end + 1] === '\t') end += 1;
      // White space before a line break is dropped with it.
      if (source[end + 1] !== '\n') text += source.slice(i, end + 1);
      i = end;
    } else {
      text += character;
    }
  }
  return text;
}

/** The property name `yaml`'s toJS gives a scalar key (its stringifyKey). */
const keyName = (value: unknown): string => (value === null ? '' : String(value));

class BlockYamlReader {
  private readonly lines: string[];
  /** The number of lines, not counting the empty string after a final line break. */
  private readonly count: number;
  private readonly endsWithLineBreak: boolean;
  /** The line after the node last read. */
  private next = 0;
  /**
   * Each line's leading spaces, counted once (-1 until then): the reader asks again at each level that looks at a
   * line, and indentation is about half of a CRD's text.
   */
  private readonly indents: Int32Array;
  /** The string the scalar last read holds. */
  private text = '';

  constructor(source: string) {
    if (unhandledCharacter.test(source)) outside('a CR, control or BOM character');
    this.lines = source.split('\n');
    this.endsWithLineBreak = source.endsWith('\n');
    this.count = this.endsWithLineBreak ? this.lines.length - 1 : this.lines.length;
    this.indents = new Int32Array(this.lines.length).fill(-1);
  }

  private indentOf(index: number): number {
    let indent = this.indents[index]!;
    if (indent === -1) {
      indent = spacesAt(this.lines[index]!, 0);
      this.indents[index] = indent;
    }
    return indent;
  }

  documents(): unknown[] {
    const documents: unknown[] = [];
    // A `---` opens a document; until content follows, that document is empty (null).
    let openEmpty = false;
    let index = 0;
    for (;;) {
      index = this.skip(index);
      if (index >= this.count) break;
      const line = this.lines[index]!;
      if (isDocumentStart(line)) {
        if (openEmpty) documents.push(null);
        openEmpty = true;
        index += 1;
        continue;
      }
      const first = line.charCodeAt(0);
      if (first === 0x25 /* % */) outside('a directive');
      documents.push(this.block(index, spacesAt(line, 0)));
      openEmpty = false;
      index = this.skip(this.next);
      if (index < this.count && !isDocumentStart(this.lines[index]!)) outside('content after the document');
    }
    if (openEmpty) documents.push(null);
    return documents;
  }

  /** The first line at or after `index` that is neither blank nor a comment. */
  private skip(index: number): number {
    let at = index;
    while (at < this.count) {
      const line = this.lines[at]!;
      const start = this.indentOf(at);
      if (start < line.length) {
        if (line.charCodeAt(start) !== HASH) {
          if (line.indexOf('\t') !== -1) outside('a tab');
          return at;
        }
        if (line.indexOf('\t') !== -1) outside('a tab in a comment');
      }
      at += 1;
    }
    return at;
  }

  /** The block collection whose first line is `index`, at `column`. */
  private block(index: number, column: number): unknown {
    return isSequenceEntry(this.lines[index]!, column)
      ? this.sequence(index, column, false)
      : this.mapping(index, column);
  }

  /**
   * The block mapping whose first key is at `column` of line `index` (the line's indentation, or further right in a
   * compact mapping `- key: value`); its other keys are on lines indented to that column.
   */
  private mapping(index: number, column: number): Record<string, unknown> {
    const mapping: Record<string, unknown> = {};
    let at = index;
    for (;;) {
      const line = this.lines[at]!;
      const colon = this.key(line, column);
      const key = this.text;
      if (key === '__proto__' || key === '<<') outside(`key ${key}`);
      if (Object.hasOwn(mapping, key)) outside(`duplicate key ${key}`);
      const valueStart = spacesAt(line, colon + 1);
      mapping[key] =
        valueStart === line.length || line.charCodeAt(valueStart) === HASH
          ? this.nested(at + 1, column, true)
          : this.inline(line, valueStart, at, column);
      at = this.nextAtColumn(column, 'mapping');
      if (at === -1) return mapping;
      if (isSequenceEntry(this.lines[at]!, column)) outside('a sequence entry among mapping keys');
    }
  }

  /**
   * The line after the node just read when it is indented to `column`, the next entry of the collection there; -1
   * (with `next` on that line) where the collection ends: a line indented less, a `---`, the end of the text.
   */
  private nextAtColumn(column: number, collection: string): number {
    const at = this.skip(this.next);
    this.next = at;
    if (at >= this.count) return -1;
    const line = this.lines[at]!;
    const indent = this.indentOf(at);
    if (indent < column || isDocumentStart(line)) return -1;
    if (indent > column) outside(`a line indented deeper than its ${collection}`);
    return at;
  }

  /** The block sequence whose first `-` is at `column` of line `index`; `indentless` when it is a key's value at the key's column. */
  private sequence(index: number, column: number, indentless: boolean): unknown[] {
    const sequence: unknown[] = [];
    let at = index;
    for (;;) {
      const line = this.lines[at]!;
      const itemStart = spacesAt(line, column + 1);
      sequence.push(
        itemStart === line.length || line.charCodeAt(itemStart) === HASH
          ? this.nested(at + 1, column, false)
          : this.item(line, itemStart, at, column),
      );
      at = this.nextAtColumn(column, 'sequence');
      if (at === -1) return sequence;
      if (!isSequenceEntry(this.lines[at]!, column)) {
        if (indentless) return sequence;
        outside('a mapping key among sequence entries');
      }
    }
  }

  /** A value on the lines after a key or `-` with nothing after it: a block collection, or null. */
  private nested(index: number, parentColumn: number, indentlessAllowed: boolean): unknown {
    const at = this.skip(index);
    this.next = index;
    if (at >= this.count) return null;
    const line = this.lines[at]!;
    if (isDocumentStart(line)) return null;
    const indent = this.indentOf(at);
    if (indent > parentColumn) {
      if (isSequenceEntry(line, indent) || this.isMappingEntry(line, indent)) return this.block(at, indent);
      // A scalar on the lines after its key (as Prettier writes long ones): plain or quoted only.
      const first = line.charCodeAt(indent);
      if (first === 0x7c /* | */ || first === 0x3e /* > */ || first === 0x7b /* { */ || first === 0x5b /* [ */)
        outside('a scalar on the line after its key');
      return this.inline(line, indent, at, parentColumn);
    }
    if (indent === parentColumn && indentlessAllowed && isSequenceEntry(line, indent))
      return this.sequence(at, indent, true);
    return null;
  }

  /** A sequence item that starts on its `-`'s line, at `column`. */
  private item(line: string, column: number, index: number, sequenceColumn: number): unknown {
    if (isSequenceEntry(line, column)) return this.sequence(index, column, false);
    if (this.isMappingEntry(line, column)) return this.mapping(index, column);
    return this.inline(line, column, index, sequenceColumn);
  }

  private isMappingEntry(line: string, column: number): boolean {
    const first = line.charCodeAt(column);
    if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
      const close =
        first === DOUBLE_QUOTE ? closingDoubleQuote(line, column + 1) : this.closingSingleQuote(line, column + 1);
      return close !== -1 && line.charCodeAt(close + 1) === COLON;
    }
    const colon = this.plainKeyEnd(line, column);
    if (colon === -1) return false;
    const comment = line.indexOf(' #', column);
    return comment === -1 || comment > colon;
  }

  /** The first `:` followed by a space or the line's end, or -1. */
  private plainKeyEnd(line: string, column: number): number {
    let colon = line.indexOf(':', column);
    while (colon !== -1 && colon + 1 < line.length && line.charCodeAt(colon + 1) !== SPACE)
      colon = line.indexOf(':', colon + 1);
    return colon;
  }

  /** Reads the key at `column` into `text`; returns the index of its `:`. */
  private key(line: string, column: number): number {
    const first = line.charCodeAt(column);
    let colon: number;
    if (first === DOUBLE_QUOTE || first === SINGLE_QUOTE) {
      colon = first === DOUBLE_QUOTE ? this.doubleQuoted(line, column) : this.singleQuoted(line, column);
      if (line.charCodeAt(colon) !== COLON || (colon + 1 < line.length && line.charCodeAt(colon + 1) !== SPACE))
        outside('a quoted scalar where a key was expected');
    } else {
      this.checkPlainStart(line, column);
      colon = this.plainKeyEnd(line, column);
      if (colon === -1) outside('a scalar where a key was expected');
      const comment = line.indexOf(' #', column);
      if (comment !== -1 && comment < colon) outside('a comment before a key ends');
      if (line.charCodeAt(colon - 1) === SPACE) outside('a space before a key`s colon');
      this.text = keyName(plainValue(line.slice(column, colon)));
    }
    if (colon - column > MAX_KEY_LENGTH) outside('a long key');
    return colon;
  }

  /** Gives up on a plain scalar starting with an indicator (`-`, `?`, `:` only when a space follows them). */
  private checkPlainStart(line: string, column: number): void {
    const first = line[column];
    switch (first) {
      case '-':
        if (isSequenceEntry(line, column)) outside('a sequence entry where a scalar was expected');
        return;
      case '?':
      case ':':
      case ',':
      case '[':
      case ']':
      case '{':
      case '}':
      case '#':
      case '&':
      case '*':
      case '!':
      case '|':
      case '>':
      case "'":
      case '"':
      case '%':
      case '@':
      case '`':
      case undefined:
        outside(`a scalar starting with ${first ?? 'nothing'}`);
    }
  }

  /** A scalar (or empty flow collection) starting at `column` of line `index`, in a collection at `parentColumn`. */
  private inline(line: string, column: number, index: number, parentColumn: number): unknown {
    this.next = index + 1;
    switch (line.charCodeAt(column)) {
      case 0x7c /* | */:
      case 0x3e /* > */:
        return this.blockScalar(line, column, index, parentColumn);
      case DOUBLE_QUOTE:
        return this.doubleQuotedValue(line, column, index, parentColumn);
      case SINGLE_QUOTE:
        return this.singleQuotedValue(line, column, index, parentColumn);
      case 0x7b /* { */:
        if (!line.startsWith('{}', column)) outside('a flow mapping');
        this.endOfLine(line, column + 2);
        return {};
      case 0x5b /* [ */:
        if (!line.startsWith('[]', column)) outside('a flow sequence');
        this.endOfLine(line, column + 2);
        return [];
    }
    this.checkPlainStart(line, column);
    const comment = line.indexOf(' #', column);
    const first = plainLine(line.slice(column, comment === -1 ? line.length : comment));
    // A comment ends a plain scalar; a line indented deeper after it is then the containing collection's to refuse.
    if (comment !== -1) return plainValue(first);
    const segments = [first];
    let last = index;
    for (let at = index + 1; at < this.count; at += 1) {
      const current = this.lines[at]!;
      const spaces = this.indentOf(at);
      if (spaces === current.length) continue;
      if (spaces <= parentColumn || current.charCodeAt(spaces) === HASH) break;
      if (current.indexOf('\t') !== -1) outside('a tab in a plain scalar');
      if (current.indexOf(' #', spaces) !== -1) outside('a comment after a plain scalar`s line');
      for (let blank = last + 1; blank < at; blank += 1) segments.push('');
      segments.push(plainLine(current.slice(spaces)));
      last = at;
    }
    this.next = last + 1;
    return plainValue(unfold(segments));
  }

  /** A single-quoted scalar at `column` of line `index`, on that line or continued on lines indented deeper than `parentColumn`. */
  private singleQuotedValue(line: string, column: number, index: number, parentColumn: number): string {
    const close = this.closingSingleQuote(line, column + 1);
    if (close !== -1) {
      this.endOfLine(line, close + 1);
      return line.slice(column + 1, close).replaceAll("''", "'");
    }
    const segments = [line.slice(column + 1)];
    for (let at = index + 1; at < this.count; at += 1) {
      const current = this.lines[at]!;
      const spaces = this.indentOf(at);
      if (spaces < current.length && spaces <= parentColumn) break;
      if (current.indexOf('\t') !== -1) outside('a tab in a quoted scalar');
      const end = this.closingSingleQuote(current, 0);
      if (end === -1) {
        segments.push(current);
        continue;
      }
      segments.push(current.slice(0, end));
      this.endOfLine(current, end + 1);
      this.next = at + 1;
      return unfold(segments).replaceAll("''", "'");
    }
    return outside('an unterminated single-quoted scalar');
  }

  /** The index of the `'` that closes a single-quoted scalar, searching `line` from `from`; -1 if none. */
  private closingSingleQuote(line: string, from: number): number {
    let quote = line.indexOf("'", from);
    while (quote !== -1 && line.charCodeAt(quote + 1) === SINGLE_QUOTE) quote = line.indexOf("'", quote + 2);
    return quote;
  }

  /** Gives up unless only spaces and a comment follow `end`. */
  private endOfLine(line: string, end: number): void {
    const rest = spacesAt(line, end);
    if (rest === line.length) return;
    if (rest === end || line.charCodeAt(rest) !== HASH) outside('content after a scalar');
  }

  /** Reads the single-line double-quoted scalar at `column` into `text`; returns the index after its closing quote. */
  private doubleQuoted(line: string, column: number): number {
    const close = closingDoubleQuote(line, column + 1);
    if (close === -1) outside('a multi-line double-quoted key');
    this.text = doubleQuotedText(line.slice(column + 1, close));
    return close + 1;
  }

  /** A double-quoted scalar at `column` of line `index`, on that line or continued on lines indented deeper than `parentColumn`. */
  private doubleQuotedValue(line: string, column: number, index: number, parentColumn: number): string {
    let close = closingDoubleQuote(line, column + 1);
    if (close !== -1) {
      this.endOfLine(line, close + 1);
      return doubleQuotedText(line.slice(column + 1, close));
    }
    let source = line.slice(column + 1);
    for (let at = index + 1; at < this.count; at += 1) {
      const current = this.lines[at]!;
      const spaces = this.indentOf(at);
      if (spaces < current.length && spaces <= parentColumn) break;
      if (current.indexOf('\t') !== -1) outside('a tab in a quoted scalar');
      close = closingDoubleQuote(current, 0);
      if (close === -1) {
        source += '\n' + current;
        continue;
      }
      this.endOfLine(current, close + 1);
      this.next = at + 1;
      return doubleQuotedText(source + '\n' + current.slice(0, close));
    }
    return outside('an unterminated double-quoted scalar');
  }

  /** Reads the single-line single-quoted scalar at `column` into `text`; returns the index after its closing quote. */
  private singleQuoted(line: string, column: number): number {
    let value = '';
    let chunk = column + 1;
    for (;;) {
      const quote = line.indexOf("'", chunk);
      if (quote === -1) return outside('a multi-line single-quoted scalar');
      value += line.slice(chunk, quote);
      if (line.charCodeAt(quote + 1) !== SINGLE_QUOTE) {
        this.text = value;
        return quote + 1;
      }
      value += "'";
      chunk = quote + 2;
    }
  }

  /**
   * The literal (`|`) or folded (`>`) block scalar whose header is at `column` of line `index`, as `yaml`'s
   * resolveBlockScalar builds it. Its content must be indented deeper than `parentColumn`.
   */
  private blockScalar(line: string, column: number, index: number, parentColumn: number): string {
    const folded = line.charCodeAt(column) === 0x3e;
    let headerEnd = column + 1;
    const chomp = line[headerEnd] === '-' || line[headerEnd] === '+' ? line[headerEnd] : '';
    if (chomp !== '') headerEnd += 1;
    if (headerEnd < line.length && line.charCodeAt(headerEnd) !== SPACE) outside('a block scalar header');
    this.endOfLine(line, headerEnd);

    const { lines, count } = this;
    let leadingEmpty = 0;
    let leadingWidest = 0;
    let at = index + 1;
    let indent = -1;
    for (; at < count; at += 1) {
      const current = lines[at]!;
      const spaces = this.indentOf(at);
      if (spaces < current.length) {
        if (current.charCodeAt(spaces) === TAB) outside('a tab in a block scalar`s indentation');
        indent = spaces;
        break;
      }
      leadingEmpty += 1;
      leadingWidest = Math.max(leadingWidest, spaces);
    }
    if (indent <= parentColumn) return outside('an empty block scalar');
    if (leadingWidest > indent) outside('a block scalar with more-indented leading empty lines');
    const first = at;
    let last = at;
    for (at += 1; at < count; at += 1) {
      const current = lines[at]!;
      const spaces = this.indentOf(at);
      if (spaces === current.length) continue;
      if (spaces < indent) {
        if (current.charCodeAt(spaces) === TAB) outside('a tab in a block scalar`s indentation');
        break;
      }
      last = at;
    }
    const end = at;
    for (let trailing = last + 1; trailing < end; trailing += 1)
      if (lines[trailing]!.length > indent) outside('a block scalar with more-indented trailing empty lines');
    this.next = end;

    let value = '\n'.repeat(leadingEmpty);
    if (!folded) {
      for (let i = first; i <= last; i += 1) value += (i === first ? '' : '\n') + lines[i]!.slice(indent);
    } else {
      let separator = '';
      let previousMoreIndented = false;
      for (let i = first; i <= last; i += 1) {
        const current = lines[i]!;
        const spaces = this.indentOf(i);
        if (spaces > indent || current.charCodeAt(spaces) === TAB) {
          if (separator === ' ') separator = '\n';
          else if (!previousMoreIndented && separator === '\n') separator = '\n\n';
          value += separator + current.slice(indent);
          separator = '\n';
          previousMoreIndented = true;
        } else if (spaces === current.length) {
          if (separator === '\n') value += '\n';
          else separator = '\n';
        } else {
          value += separator + current.slice(spaces);
          separator = ' ';
          previousMoreIndented = false;
        }
      }
    }
    if (chomp === '') return value + '\n';
    if (chomp === '-') return value;
    // `yaml` keeps the line breaks up to the next line that is not empty; a last line of spaces without a line
    // break it leaves out of the scalar when it is shorter than the indentation.
    const trailingLines = end - last - 1;
    if (end === count && !this.endsWithLineBreak)
      return trailingLines === 0 ? value + '\n' : outside('kept trailing spaces at the end of the text');
    return value + '\n'.repeat(trailingLines + 1);
  }
}
