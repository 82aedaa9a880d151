// Strings a schema's `pattern` may take, for the example object `crdgate init --from-crd` makes: a few guesses from
// the regular expression itself (the fewest repetitions, one, a few; each alternative), in the order a person would
// write them. They are guesses: the API server engine judges the object, and the scaffold keeps one it takes. A
// pattern this reader does not follow (a Unicode class, a backreference) gives no guess.

type PatternNode =
  | { kind: 'sequence'; items: PatternNode[] }
  | { kind: 'alternatives'; options: PatternNode[] }
  | { kind: 'character'; matches: (code: number) => boolean }
  | { kind: 'repeat'; node: PatternNode; min: number; max: number }
  | { kind: 'empty' };

class UnreadablePattern extends Error {}

/** How the guesses differ: how many repetitions, which alternative, which of the characters a class takes. */
interface Guess {
  repeats: 'fewest' | 'one' | 'several';
  alternative: number;
  character: number;
}

// The characters a person would write first, in that order; then the rest of printable ASCII.
const preferred = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-._/:@';
const characterOrder = [
  ...[...preferred].map((c) => c.charCodeAt(0)),
  ...Array.from({ length: 95 }, (_, i) => i + 32).filter((code) => !preferred.includes(String.fromCharCode(code))),
];
const maxGuesses = 12;
const severalRepeats = 3;

/** Up to a dozen distinct strings the pattern is meant to take, the likeliest first; none when it cannot be read. */
export function patternExamples(pattern: string): string[] {
  let tree: PatternNode;
  try {
    tree = new PatternReader(pattern).read();
  } catch (error) {
    if (error instanceof UnreadablePattern) return [];
    throw error;
  }
  const guesses: string[] = [];
  for (const character of [0, 1, 2])
    for (const alternative of [0, 1, 2])
      for (const repeats of ['one', 'fewest', 'several'] as const) {
        const text = write(tree, { repeats, alternative, character });
        if (text !== undefined && !guesses.includes(text)) guesses.push(text);
      }
  return guesses.slice(0, maxGuesses);
}

function write(node: PatternNode, guess: Guess): string | undefined {
  switch (node.kind) {
    case 'empty':
      return '';
    case 'sequence': {
      let text = '';
      for (const item of node.items) {
        const part = write(item, guess);
        if (part === undefined) return undefined;
        text += part;
      }
      return text;
    }
    case 'alternatives':
      return write(node.options[Math.min(guess.alternative, node.options.length - 1)]!, guess);
    case 'character': {
      const codes = characterOrder.filter(node.matches);
      const code = codes[Math.min(guess.character, codes.length - 1)];
      return code === undefined ? undefined : String.fromCharCode(code);
    }
    case 'repeat': {
      const wanted = guess.repeats === 'fewest' ? node.min : guess.repeats === 'one' ? 1 : severalRepeats;
      const count = Math.min(Math.max(wanted, node.min), node.max);
      let text = '';
      for (let index = 0; index < count; index++) {
        const part = write(node.node, guess);
        if (part === undefined) return undefined;
        text += part;
      }
      return text;
    }
  }
}

const inRange = (low: number, high: number) => (code: number) => code >= low && code <= high;
const digit = inRange(48, 57);
const word = (code: number) => digit(code) || inRange(65, 90)(code) || inRange(97, 122)(code) || code === 95;
const space = (code: number) => code === 32 || inRange(9, 13)(code);
const not =
  (matches: (code: number) => boolean) =>
  (code: number): boolean =>
    !matches(code);

/** A reader of the regular expressions schemas use (RE2's syntax, which JavaScript's shares for these). */
class PatternReader {
  private position = 0;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  read(): PatternNode {
    const node = this.alternatives();
    if (this.position < this.text.length) throw new UnreadablePattern(`unexpected ${this.text[this.position]}`);
    return node;
  }

  private peek(): string | undefined {
    return this.text[this.position];
  }

  private alternatives(): PatternNode {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.position++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alternatives', options };
  }

  private sequence(): PatternNode {
    const items: PatternNode[] = [];
    for (let next = this.peek(); next !== undefined && next !== '|' && next !== ')'; next = this.peek())
      items.push(this.quantified(this.atom()));
    return { kind: 'sequence', items };
  }

  private quantified(node: PatternNode): PatternNode {
    let result = node;
    for (;;) {
      const next = this.peek();
      let bounds: [number, number] | undefined;
      if (next === '*') bounds = [0, Infinity];
      else if (next === '+') bounds = [1, Infinity];
      else if (next === '?') bounds = [0, 1];
      else if (next === '{') bounds = this.braces();
      if (bounds === undefined) return result;
      if (next !== '{') this.position++;
      if (this.peek() === '?' || this.peek() === '+') this.position++; // lazy or possessive: the same strings
      result = { kind: 'repeat', node: result, min: bounds[0], max: bounds[1] };
    }
  }

  /** `{n}`, `{n,}`, `{n,m}`; undefined (a literal brace) for anything else, as RE2 reads it. */
  private braces(): [number, number] | undefined {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.text.slice(this.position));
    if (match === null) return undefined;
    this.position += match[0].length;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
    return [min, max];
  }

  private atom(): PatternNode {
    const next = this.text[this.position++]!;
    switch (next) {
      case '^':
      case '$':
        return { kind: 'empty' };
      case '.':
        return { kind: 'character', matches: (code) => code !== 10 };
      case '(':
        return this.group();
      case '[':
        return { kind: 'character', matches: this.characterClass() };
      case '\\':
        return this.escape(false);
      case '{':
        return literal(next);
      default:
        return literal(next);
    }
  }

  private group(): PatternNode {
    if (this.peek() === '?') {
      const flags = /^\?(P?<[A-Za-z_][A-Za-z0-9_]*>|[imsU-]*:|[imsU-]+\))/.exec(this.text.slice(this.position));
      if (flags === null) throw new UnreadablePattern('a group this reader does not follow');
      this.position += flags[0].length;
      if (flags[0].endsWith(')')) return { kind: 'empty' }; // (?i): flags for what follows
    }
    const inner = this.alternatives();
    if (this.text[this.position++] !== ')') throw new UnreadablePattern('an unclosed group');
    return inner;
  }

  private characterClass(): (code: number) => boolean {
    const negated = this.peek() === '^';
    if (negated) this.position++;
    const parts: ((code: number) => boolean)[] = [];
    let first = true;
    for (;;) {
      const next = this.text[this.position++];
      if (next === undefined) throw new UnreadablePattern('an unclosed character class');
      if (next === ']' && !first) break;
      first = false;
      if (next === '[' && this.peek() === ':') {
        const named = /^:(\^?)([a-z]+):\]/.exec(this.text.slice(this.position));
        if (named === null) throw new UnreadablePattern('a class this reader does not follow');
        this.position += named[0].length;
        const matches = posixClass(named[2]!);
        parts.push(named[1] === '^' ? not(matches) : matches);
        continue;
      }
      let low: number;
      if (next === '\\') {
        const escaped = this.escape(true);
        if (escaped.kind !== 'character') throw new UnreadablePattern('an escape this reader does not follow');
        const single = singleCode(escaped.matches);
        if (single === undefined) {
          parts.push(escaped.matches);
          continue;
        }
        low = single;
      } else low = next.charCodeAt(0);
      if (this.peek() === '-' && this.text[this.position + 1] !== ']' && this.text[this.position + 1] !== undefined) {
        this.position++;
        let high = this.text[this.position++]!.charCodeAt(0);
        if (high === 92) {
          const escaped = singleCode((this.escape(true) as { matches: (code: number) => boolean }).matches);
          if (escaped === undefined) throw new UnreadablePattern('a range to a class');
          high = escaped;
        }
        parts.push(inRange(low, high));
      } else parts.push(inRange(low, low));
    }
    const matches = (code: number) => parts.some((part) => part(code));
    return negated ? (code) => code !== 10 && !matches(code) : matches;
  }

  private escape(inClass: boolean): PatternNode & { kind: 'character' | 'empty' } {
    const next = this.text[this.position++];
    if (next === undefined) throw new UnreadablePattern('a trailing backslash');
    const classes: Record<string, (code: number) => boolean> = {
      d: digit,
      D: not(digit),
      w: word,
      W: not(word),
      s: space,
      S: not(space),
    };
    if (classes[next] !== undefined) return { kind: 'character', matches: classes[next] };
    if (!inClass && 'bBAzZ'.includes(next)) return { kind: 'empty' };
    const controls: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
    if (controls[next] !== undefined) return literal(String.fromCharCode(controls[next]));
    if (next === 'x') {
      const hex = /^(\{[0-9A-Fa-f]+\}|[0-9A-Fa-f]{2})/.exec(this.text.slice(this.position));
      if (hex === null) throw new UnreadablePattern('a malformed \\x');
      this.position += hex[0].length;
      return literal(String.fromCodePoint(parseInt(hex[0].replace(/[{}]/g, ''), 16)));
    }
    if (/[A-Za-z0-9]/.test(next)) throw new UnreadablePattern(`\\${next}, which this reader does not follow`);
    return literal(next);
  }
}

function literal(character: string): PatternNode & { kind: 'character' } {
  const code = character.charCodeAt(0);
  return { kind: 'character', matches: (other) => other === code };
}

/** The one code a class of a single character takes; undefined for a wider class. */
function singleCode(matches: (code: number) => boolean): number | undefined {
  const codes: number[] = [];
  for (let code = 0; code < 128 && codes.length < 2; code++) if (matches(code)) codes.push(code);
  return codes.length === 1 ? codes[0] : undefined;
}

function posixClass(name: string): (code: number) => boolean {
  const classes: Record<string, (code: number) => boolean> = {
    alpha: (code) => inRange(65, 90)(code) || inRange(97, 122)(code),
    digit,
    alnum: (code) => digit(code) || inRange(65, 90)(code) || inRange(97, 122)(code),
    lower: inRange(97, 122),
    upper: inRange(65, 90),
    space,
    word,
    xdigit: (code) => digit(code) || inRange(65, 70)(code) || inRange(97, 102)(code),
    punct: (code) => inRange(33, 47)(code) || inRange(58, 64)(code) || inRange(91, 96)(code) || inRange(123, 126)(code),
  };
  const matches = classes[name];
  if (matches === undefined) throw new UnreadablePattern(`[:${name}:], which this reader does not follow`);
  return matches;
}
