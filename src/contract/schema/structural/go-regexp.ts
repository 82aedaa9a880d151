import { RE2JS, RE2JSSyntaxException } from 're2js';
import { goUnicodeTableName } from './go-unicode-classes.ts';

// An OpenAPI `pattern` as kube-apiserver reads it: Go's regexp (RE2 syntax with Perl's classes and flags, what
// regexp.Compile takes), matched with MatchString, a search anywhere in the value, in time linear in the value.
// re2js is a port of Go's regexp (through RE2/J); where it still reads Go's syntax otherwise, the pattern is
// rewritten before it gets there (goSyntaxForRe2js), and its errors are worded as Go's regexp/syntax.Error.

/** A pattern Go's regexp does not compile; the message is Go's error, `error parsing regexp: ...`. */
export class GoRegexpSyntaxError extends Error {
  override name = 'GoRegexpSyntaxError';
}

export interface GoRegexp {
  readonly pattern: string;
  /** Whether the pattern matches anywhere in the value, as Go's MatchString. */
  test(value: string): boolean;
}

/** Compiles as Go's regexp.Compile does; throws a GoRegexpSyntaxError with Go's message where Go refuses it. */
export function compileGoRegexp(pattern: string): GoRegexp {
  const { source, invalidClass, escapedBrackets } = goSyntaxForRe2js(pattern);
  if (invalidClass !== undefined)
    throw new GoRegexpSyntaxError(goErrorMessage('invalid character class range', invalidClass));
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (error) {
    if (!(error instanceof RE2JSSyntaxException)) throw error;
    throw new GoRegexpSyntaxError(goErrorMessage(error.error, goExpression(error, pattern, source, escapedBrackets)));
  }
  return {
    pattern,
    // Go matches the UTF-8 the API server decoded, where a lone surrogate of the JSON has become U+FFFD.
    test: (value) => compiled.test(value.isWellFormed() ? value : value.toWellFormed()),
  };
}

// Operators' CRDs repeat a few patterns hundreds of times (a quantity's, in every resources block of a pod
// template): each is compiled once to check it, not at every schema node that has it. The answer depends on the
// pattern alone; the bound keeps a stream of distinct patterns from growing it without end.
const checkedPatterns = new Map<string, string | undefined>();
const maxCheckedPatterns = 4096;

/** Go's message for a pattern, or undefined where Go compiles it. */
export function goRegexpError(pattern: string): string | undefined {
  if (checkedPatterns.has(pattern)) return checkedPatterns.get(pattern);
  let message: string | undefined;
  try {
    compileGoRegexp(pattern);
  } catch (error) {
    if (!(error instanceof GoRegexpSyntaxError)) throw error;
    message = error.message;
  }
  if (checkedPatterns.size >= maxCheckedPatterns) checkedPatterns.clear();
  checkedPatterns.set(pattern, message);
  return message;
}

function goErrorMessage(code: string, expression: string): string {
  return `error parsing regexp: ${code}: \`${expression}\``;
}

/**
 * The text Go's error quotes. re2js leaves it out where Go quotes the whole pattern (too large, nested too deeply,
 * a parenthesis missing or unexpected) or nothing (a trailing backslash); the whole pattern is the one written,
 * not the rewritten one, and a part of it as written.
 */
function goExpression(
  error: RE2JSSyntaxException,
  pattern: string,
  source: string,
  escapedBrackets: ReadonlySet<number>,
): string {
  const { input } = error;
  if (input !== null) return input === source ? pattern : asWritten(input, source, escapedBrackets);
  return error.error === 'trailing backslash at end of expression' ? '' : pattern;
}

/** A part of the rewritten pattern as it was written: without the backslashes put before brackets. */
function asWritten(part: string, source: string, escapedBrackets: ReadonlySet<number>): string {
  const at = escapedBrackets.size === 0 ? -1 : source.indexOf(part);
  if (at < 0) return part;
  let written = '';
  for (let index = at; index < at + part.length; index++) if (!escapedBrackets.has(index)) written += source[index];
  return written;
}

interface Rewritten {
  source: string;
  /** Where the rewritten pattern has a backslash the pattern does not (before a `[` inside a class). */
  escapedBrackets: ReadonlySet<number>;
  /** The first `\p{...}` Go finds no table for, as written. */
  invalidClass?: string;
}

/**
 * The pattern with the two things re2js reads otherwise than Go put in its terms: a group's name, which Go allows
 * twice and re2js does not (names change nothing a match decides, so a named group becomes a plain one), and the
 * name of a Unicode class, which Go puts in a canonical form first (go-unicode-classes.ts). Quoted text (`\Q...\E`),
 * escapes and the insides of classes are walked as Go's parser walks them, so that nothing else is touched. The walk
 * stops where Go's parser stops with an error, so it reads each character of the pattern a bounded number of times.
 */
function goSyntaxForRe2js(pattern: string): Rewritten {
  let source = '';
  let invalidClass: string | undefined;
  let i = 0;
  let inClass = false;
  let stopped = false;
  const escapedBrackets = new Set<number>();
  // The last `:]`: past it, no `[:` starts a POSIX class, and none is looked for (each would scan to the end).
  const lastPosixEnd = pattern.lastIndexOf(':]');
  // `(?P<name>` or `(?<name>` with a name Go takes (letters, digits, `_`); another is left for re2js to refuse.
  const namedGroup = /\(\?P?<[A-Za-z0-9_]+>/y;
  const unicodeClass = (): boolean => {
    const sign = pattern[i + 1];
    if (pattern[i] !== '\\' || (sign !== 'p' && sign !== 'P')) return false;
    let seq: string;
    let name: string;
    if (pattern[i + 2] === '{') {
      const end = pattern.indexOf('}', i);
      if (end < 0) {
        // Go stops here (an invalid class); re2js refuses the rest as it does.
        stopped = true;
        return true;
      }
      seq = pattern.slice(i, end + 1);
      name = pattern.slice(i + 3, end);
    } else {
      const letter = pattern.codePointAt(i + 2);
      if (letter === undefined) return false;
      seq = pattern.slice(i, i + 2 + String.fromCodePoint(letter).length);
      name = seq.slice(2);
    }
    const negated = name.startsWith('^');
    const table = goUnicodeTableName(negated ? name.slice(1) : name);
    if (table === undefined) {
      // Go stops at the first class it finds no table for.
      invalidClass = seq;
      stopped = true;
      return true;
    }
    source += `\\${sign}{${negated ? '^' : ''}${table}}`;
    i += seq.length;
    return true;
  };
  while (i < pattern.length && !stopped) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (unicodeClass()) continue;
      if (!inClass && pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? pattern.length : end + 2;
        source += pattern.slice(i, stop);
        i = stop;
        continue;
      }
      source += pattern.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') {
        const end = lastPosixEnd >= i + 2 ? pattern.indexOf(':]', i + 2) : -1;
        if (end >= 0) {
          source += pattern.slice(i, end + 2);
          i = end + 2;
          continue;
        }
        // No `:]` follows, so Go reads this `[` as itself; re2js would look for one to the end at each `[:`, in time
        // quadratic in the pattern (minutes for a long one): it is given the same character, escaped.
        escapedBrackets.add(source.length);
        source += '\\[';
        i++;
        continue;
      }
      if (c === ']') inClass = false;
      source += c;
      i++;
      continue;
    }
    if (c === '[') {
      // A `]` right after `[` or `[^` is a literal, not the end.
      const start = pattern[i + 1] === '^' ? i + 2 : i + 1;
      const literalBracket = pattern[start] === ']' ? 1 : 0;
      source += pattern.slice(i, start + literalBracket);
      i = start + literalBracket;
      inClass = true;
      continue;
    }
    namedGroup.lastIndex = i;
    const name = namedGroup.exec(pattern);
    if (name) {
      source += '(';
      i += name[0].length;
      continue;
    }
    source += c;
    i++;
  }
  source += pattern.slice(i);
  return invalidClass === undefined ? { source, escapedBrackets } : { source, escapedBrackets, invalidClass };
}
