// Writing CEL text as a tree: each expression knows how tightly it binds, and an operand is parenthesised exactly
// when it binds more loosely than its place needs, so precedence is the structure, not parentheses by hand.
// Literals come from JSON values; optional-chained reads of fields that may be absent.

/** An expression of CEL, rendered; `binds` says how tightly, so that the operators around it know. */
export interface Cel {
  readonly text: string;
  readonly binds: Binding;
  /** The strings a concatenation joins, so that a concatenation of concatenations is one flat sum. */
  readonly joins?: readonly Cel[];
}

// CEL's grammar, loosest first: `c ? a : b`, `||`, `&&`, relations (`== != < <= > >= in`), `+ -`, `* / %`, unary
// `! -`, then member reads, calls and indexes, then primaries (literals, names, parentheses, lists, maps).
export const Binding = {
  Conditional: 1,
  Or: 2,
  And: 3,
  Relation: 4,
  Additive: 5,
  Multiplicative: 6,
  Unary: 7,
  Member: 8,
  Primary: 9,
} as const;
export type Binding = (typeof Binding)[keyof typeof Binding];

function cel(text: string, binds: Binding): Cel {
  return { text, binds };
}

/** `operand` as text that binds at least as tightly as `needed`. */
function operand(expression: Cel, needed: Binding): string {
  return expression.binds >= needed ? expression.text : `(${expression.text})`;
}

/** A name: a variable (`oldObject`, `self`) or a macro's loop variable. */
export function ident(name: string): Cel {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a CEL identifier: ${name}`);
  return cel(name, Binding.Primary);
}

/**
 * A CEL string literal. JSON's escapes (\" \\ \n \t \uXXXX ...) are all CEL escapes too, and CEL strings, like
 * JSON's, hold any Unicode text; a lone surrogate, which no UTF-8 text holds and CEL refuses as an escape, becomes
 * U+FFFD, as it would on its way to the API server as UTF-8.
 */
export function celString(text: string): string {
  return JSON.stringify(text.toWellFormed());
}

/** A string literal as an expression. */
export function str(text: string): Cel {
  return cel(celString(text), Binding.Primary);
}

/** An int literal; CEL reads a leading minus as part of a literal. */
export function int(value: number): Cel {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer CEL and JavaScript both hold exactly: ${value}`);
  return cel(String(value), value < 0 ? Binding.Unary : Binding.Primary);
}

export function bool(value: boolean): Cel {
  return cel(String(value), Binding.Primary);
}

export const celTrue = bool(true);
export const celFalse = bool(false);

/** A JSON value as a CEL literal; undefined for one CEL cannot hold as the API server would read it (a fraction). */
export function celLiteral(value: unknown): string | undefined {
  return literal(value)?.text;
}

/** See celLiteral. */
export function literal(value: unknown): Cel | undefined {
  if (typeof value === 'string') return str(value);
  if (typeof value === 'boolean') return bool(value);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? int(value) : undefined;
  if (Array.isArray(value)) {
    const items = value.map(literal);
    return items.every((item) => item !== undefined) ? list(items) : undefined;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => [key, literal(item)] as const);
    if (!entries.every((entry): entry is readonly [string, Cel] => entry[1] !== undefined)) return undefined;
    return cel(`{${entries.map(([key, item]) => `${celString(key)}: ${item.text}`).join(', ')}}`, Binding.Primary);
  }
  return undefined;
}

export function list(items: readonly Cel[]): Cel {
  return cel(`[${items.map((item) => item.text).join(', ')}]`, Binding.Primary);
}

/** `a && b && ...`; true when there is nothing to require. */
export function and(...operands: readonly Cel[]): Cel {
  return chain(operands, ' && ', Binding.And, celTrue);
}

/** `a || b || ...`; false when there is nothing to allow. */
export function or(...operands: readonly Cel[]): Cel {
  return chain(operands, ' || ', Binding.Or, celFalse);
}

// && and || are associative (and commutative in CEL, errors included), so a chain of the same operator needs no
// parentheses inside.
function chain(operands: readonly Cel[], operator: string, binds: Binding, empty: Cel): Cel {
  if (operands.length === 0) return empty;
  if (operands.length === 1) return operands[0]!;
  return cel(operands.map((each) => operand(each, binds)).join(operator), binds);
}

export function not(expression: Cel): Cel {
  return cel(`!${operand(expression, Binding.Unary)}`, Binding.Unary);
}

/** `condition ? then : otherwise`; the branch after `:` may itself be a conditional (CEL's is right-associative). */
export function cond(condition: Cel, then: Cel, otherwise: Cel): Cel {
  return cel(
    `${operand(condition, Binding.Or)} ? ${operand(then, Binding.Or)} : ${operand(otherwise, Binding.Conditional)}`,
    Binding.Conditional,
  );
}

type Relation = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in';

/** A relation; relations do not chain, so both sides bind more tightly than one. */
export function relation(left: Cel, operator: Relation, right: Cel): Cel {
  return cel(`${operand(left, Binding.Additive)} ${operator} ${operand(right, Binding.Additive)}`, Binding.Relation);
}

export const eq = (left: Cel, right: Cel): Cel => relation(left, '==', right);
export const ne = (left: Cel, right: Cel): Cel => relation(left, '!=', right);
export const lt = (left: Cel, right: Cel): Cel => relation(left, '<', right);
export const gt = (left: Cel, right: Cel): Cel => relation(left, '>', right);
export const le = (left: Cel, right: Cel): Cel => relation(left, '<=', right);
export const ge = (left: Cel, right: Cel): Cel => relation(left, '>=', right);
export const isIn = (element: Cel, container: Cel): Cel => relation(element, 'in', container);

/** `a + b + ...`, left to right: ints add, lists and strings join. 0 when there is nothing to add. */
export function plus(...operands: readonly Cel[]): Cel {
  if (operands.length === 0) return int(0);
  if (operands.length === 1) return operands[0]!;
  // Left-associative: the first operand may be a sum itself, the others must bind more tightly.
  return cel(
    operands.map((each, index) => operand(each, index === 0 ? Binding.Additive : Binding.Multiplicative)).join(' + '),
    Binding.Additive,
  );
}

/** String concatenation, flat (string + is associative), adjacent literals joined into one. */
export function concat(...parts: readonly Cel[]): Cel {
  const merged: Cel[] = [];
  for (const part of parts.flatMap((each) => each.joins ?? [each])) {
    const previous = merged.at(-1);
    const [a, b] = [previous && stringLiteralValue(previous), stringLiteralValue(part)];
    if (a !== undefined && b !== undefined) merged[merged.length - 1] = str(a + b);
    else merged.push(part);
  }
  if (merged.length === 0) return str('');
  return merged.length === 1 ? merged[0]! : { ...plus(...merged), joins: merged };
}

function stringLiteralValue(expression: Cel): string | undefined {
  const { text } = expression;
  if (expression.binds !== Binding.Primary || !text.startsWith('"') || !text.endsWith('"')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `base.field`. */
export function member(base: Cel, field: string): Cel {
  return cel(`${operand(base, Binding.Member)}.${fieldName(field)}`, Binding.Member);
}

/** `base.?field`: an optional, empty when the field is absent. */
export function optionalMember(base: Cel, field: string): Cel {
  return cel(`${operand(base, Binding.Member)}.?${fieldName(field)}`, Binding.Member);
}

/** `base[key]`. */
export function index(base: Cel, key: Cel): Cel {
  return cel(`${operand(base, Binding.Member)}[${key.text}]`, Binding.Member);
}

/** `base[?key]`: an optional, empty when the map has no such key. */
export function optionalIndex(base: Cel, key: Cel): Cel {
  return cel(`${operand(base, Binding.Member)}[?${key.text}]`, Binding.Member);
}

/** `fn(args)`, or with a receiver, `receiver.fn(args)`. */
export function call(fn: string, args: readonly Cel[], receiver?: Cel): Cel {
  // Without a receiver, a function may live in a namespace: `optional.of`.
  const callee = receiver === undefined ? qualifiedName(fn) : `${operand(receiver, Binding.Member)}.${fieldName(fn)}`;
  return cel(`${callee}(${args.map((arg) => arg.text).join(', ')})`, Binding.Member);
}

/** `receiver.fn(args)`: a method. */
export function method(receiver: Cel, fn: string, ...args: readonly Cel[]): Cel {
  return call(fn, args, receiver);
}

/** `has(base.field)`: whether the field is present. */
export function has(base: Cel, field: string): Cel {
  return call('has', [member(base, field)]);
}

/**
 * `type(value) in [int]`: whether the value has the CEL type. Written as membership of a one-element list, not as
 * `type(value) == int`: cel-go costs an equality at the smaller size of its sides, and a type has no size, so the
 * API server's estimate of it would be unbounded; `in` is costed at the list's size, which is one.
 */
export function hasType(value: Cel, type: 'int' | 'string' | 'map' | 'list'): Cel {
  return isIn(call('type', [value]), list([ident(type)]));
}

function fieldName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a CEL name: ${name}`);
  return name;
}

function qualifiedName(name: string): string {
  for (const part of name.split('.')) fieldName(part);
  return name;
}

// CEL's reserved words, which the API server escapes as field names (`__namespace__`); a path through one is
// not compiled rather than escaped by a rule that could drift from the API server's.
const reservedWords = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** Whether a field name can be written after `.?` as it is. */
export function isPlainFieldName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !reservedWords.has(name);
}

/** `base.?a.?b`: an optional that is empty when any field on the way is absent. `base` must be an optional too. */
export function optionalField(base: Cel, segments: readonly string[]): Cel {
  return segments.reduce(optionalMember, base);
}
