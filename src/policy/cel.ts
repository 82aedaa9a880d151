// Writing CEL text: literals from JSON values, and optional-chained reads of fields that may be absent.

/**
 * A CEL string literal. JSON's escapes (\" \\ \n \t \uXXXX ...) are all CEL escapes too, and CEL strings, like
 * JSON's, hold any Unicode text.
 */
export function celString(text: string): string {
  return JSON.stringify(text);
}

/** A JSON value as a CEL literal; undefined for one CEL cannot hold as the API server would read it (a fraction). */
export function celLiteral(value: unknown): string | undefined {
  if (typeof value === 'string') return celString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (Array.isArray(value)) {
    const items = value.map(celLiteral);
    return items.every((item) => item !== undefined) ? `[${items.join(', ')}]` : undefined;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => [key, celLiteral(item)] as const);
    return entries.every(([, item]) => item !== undefined) ? `{${entries.map(([key, item]) => `${celString(key)}: ${item}`).join(', ')}}` : undefined;
  }
  return undefined;
}

// CEL's reserved words, which the API server escapes as field names (`__namespace__`); a path through one is
// not compiled rather than escaped by a rule that could drift from the API server's.
const reservedWords = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import',
  'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** Whether a field name can be written after `.?` as it is. */
export function isPlainFieldName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !reservedWords.has(name);
}

/** `base.?a.?b`: an optional that is empty when any field on the way is absent. `base` must be an optional too. */
export function optionalField(base: string, segments: readonly string[]): string {
  return segments.reduce((expression, segment) => `${expression}.?${segment}`, base);
}
