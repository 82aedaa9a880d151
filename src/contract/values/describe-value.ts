// Values quoted in field errors travel to users through HTTP warnings and API status messages, which must stay
// short and must not carry control characters; and the value may be a megabyte-long string from a hostile client.

import { quoteAsGo } from './go-quote.ts';

export const maxDescribedLength = 64;

/** How every message shows a value that is not there: an absent field, a keyword left out, a side of a change. */
export const absentValue = '(none)';

/**
 * JSON, shortened to about `maxLength` characters with a trailing "...", with every control character escaped; an
 * absent value (undefined) reads as `(none)`, never as a blank or `undefined`.
 */
export function describeValue(value: unknown, maxLength = maxDescribedLength): string {
  if (value === undefined) return absentValue;
  const writer = new BoundedWriter(maxLength);
  writeJson(value, writer);
  return writer.result();
}

/** As describeValue, but a string quoted as Go's %q quotes it: how the API server's field errors show one. */
export function describeFieldValue(value: unknown, maxLength = maxDescribedLength): string {
  if (typeof value !== 'string') return describeValue(value, maxLength);
  // Only the part that can be shown is quoted, so a huge string costs no more than a short one.
  const quoted = quoteAsGo(value.slice(0, maxLength + 1));
  return quoted.length > maxLength ? `${quoted.slice(0, maxLength)}...` : quoted;
}

/** Text shown as it is, outside quotes (a key in a path, a pattern): only shortened and stripped of control characters. */
export function describeText(text: string, maxLength = maxDescribedLength): string {
  const escaped = text.slice(0, maxLength + 1).replace(allControlCharacters, escapeCharacter);
  return text.length > maxLength || escaped.length > maxLength ? `${escaped.slice(0, maxLength)}...` : escaped;
}

class BoundedWriter {
  private text = '';
  private readonly maxLength: number;

  constructor(maxLength: number) {
    this.maxLength = maxLength;
  }

  get full(): boolean {
    return this.text.length > this.maxLength;
  }

  /** Characters that can still be shown; one more than that is enough to know the text was cut. */
  get remaining(): number {
    return Math.max(0, this.maxLength + 1 - this.text.length);
  }

  write(piece: string): void {
    if (!this.full) this.text += piece;
  }

  result(): string {
    const text = escapeControlCharacters(this.text);
    return text.length > this.maxLength ? `${text.slice(0, this.maxLength)}...` : text;
  }
}

function writeJson(value: unknown, writer: BoundedWriter): void {
  if (writer.full) return;
  if (typeof value === 'string') {
    // Only the part that can be shown is encoded, so a huge string costs no more than a short one.
    writer.write(JSON.stringify(value.slice(0, writer.remaining)));
  } else if (Array.isArray(value)) {
    writer.write('[');
    for (let index = 0; index < value.length && !writer.full; index++) {
      if (index > 0) writer.write(',');
      writeJson(value[index], writer);
    }
    writer.write(']');
  } else if (value !== null && typeof value === 'object') {
    writer.write('{');
    let first = true;
    for (const key in value) {
      if (writer.full) break;
      if (!Object.hasOwn(value, key)) continue;
      if (!first) writer.write(',');
      first = false;
      writeJson(key, writer);
      writer.write(':');
      writeJson((value as Record<string, unknown>)[key], writer);
    }
    writer.write('}');
  } else if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    writer.write(JSON.stringify(value));
  } else {
    writer.write(String(value));
  }
}

// JSON.stringify escapes U+0000..U+001F; DEL, the C1 controls and the Unicode line separators slip through it.
const unescapedControlCharacters = /[\u007f-\u009f\u2028\u2029]/g;

const allControlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function escapeControlCharacters(text: string): string {
  return text.replace(unescapedControlCharacters, escapeCharacter);
}

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Two values shown side by side, as JSON, never cut so that they read alike: each whole when both fit in
 * `maxLength`, else each cut to the same window around where they first differ (`..."Waiting for the node"...` →
 * `..."Waiting for a node"...`), so that the difference is what shows. An absent side reads as `(none)`.
 */
export function describeValuePair(old: unknown, now: unknown, maxLength = maxDescribedLength): [string, string] {
  const json = (value: unknown) => (value === undefined ? absentValue : (JSON.stringify(value) ?? String(value)));
  const [a, b] = differingWindows(json(old), json(now), maxLength);
  return [escapeControlCharacters(a), escapeControlCharacters(b)];
}

/** `old → new`: describeValuePair's two sides joined. */
export function describeChange(old: unknown, now: unknown, maxLength = maxDescribedLength): string {
  return describeValuePair(old, now, maxLength).join(' → ');
}

/** As describeValuePair, for texts shown as they are (rules, descriptions), outside quotes. */
export function describeTextPair(old: string, now: string, maxLength = maxDescribedLength): [string, string] {
  const [a, b] = differingWindows(old, now, maxLength);
  return [a.replace(allControlCharacters, escapeCharacter), b.replace(allControlCharacters, escapeCharacter)];
}

/**
 * A list's items shown whole, as JSON, as many as fit in about `maxLength` (at least one), then how many are left
 * out: `["Pending", "Ready"] and 3 more`. An item is never cut in two unless it alone is too long.
 */
export function describeItems(items: readonly unknown[], maxLength = maxDescribedLength): string {
  const shown: string[] = [];
  let length = 2;
  for (const item of items) {
    const text = describeValue(item, maxLength);
    if (shown.length > 0 && length + text.length + 2 > maxLength) break;
    shown.push(text);
    length += text.length + 2;
  }
  const left = items.length - shown.length;
  return `[${shown.join(', ')}]${left > 0 ? ` and ${left} more` : ''}`;
}

/** Context kept on each side of where two texts differ, when they must be cut. */
const differenceContext = 16;

function differingWindows(a: string, b: string, maxLength: number): [string, string] {
  if (a.length <= maxLength && b.length <= maxLength) return [a, b];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix += 1;
  const start = Math.max(0, prefix - differenceContext);
  const window = (text: string): string => {
    const end = Math.min(text.length, text.length - suffix + differenceContext);
    const shown = text.slice(start, Math.min(end, start + maxLength));
    return `${start > 0 ? '...' : ''}${shown}${start + shown.length < text.length ? '...' : ''}`;
  };
  const [x, y] = [window(a), window(b)];
  // Windows cut at the same place differ where the texts first do; should both still read alike, say how long each is.
  return x === y ? [`${x} (${a.length} characters)`, `${y} (${b.length} characters)`] : [x, y];
}
