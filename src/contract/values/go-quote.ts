// The API server's field errors show a string value as Go's %q writes it (strconv.Quote): printable characters as
// they are, the rest escaped. JSON.stringify escapes less (a no-break space, U+FEFF) and otherwise (\u000b for
// \v), so a message that quotes such a value is only the API server's when quoted this way.

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const shortEscapes: Readonly<Record<string, string>> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** `text` as Go's strconv.Quote writes it; a lone surrogate (which no Go string holds) as U+FFFD. */
export function quoteAsGo(text: string): string {
  let quoted = '"';
  for (const character of text.toWellFormed()) {
    const short = shortEscapes[character];
    if (short !== undefined) quoted += short;
    else if (printable.test(character)) quoted += character;
    else quoted += escapeRune(character.codePointAt(0)!);
  }
  return `${quoted}"`;
}

function escapeRune(rune: number): string {
  if (rune < 0x20 || rune === 0x7f) return `\\x${hex(rune, 2)}`;
  return rune < 0x10000 ? `\\u${hex(rune, 4)}` : `\\U${hex(rune, 8)}`;
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}
