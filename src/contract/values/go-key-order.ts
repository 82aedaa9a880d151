// Go's encoder writes a map's keys sorted by their UTF-8 bytes, and the API server sends objects so (to a webhook,
// to a conversion): what is made from their order (the JSON of a stash, a list of differences) is then made as it
// is for the API server.

/** Compares two keys as Go's encoder orders a map's. */
export function goKeyOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** `value` with the keys of each object in Go's order. */
export function inGoKeyOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => inGoKeyOrder(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort(goKeyOrder)) {
    // (defineProperty: a `__proto__` key of parsed JSON stays a plain key.)
    Object.defineProperty(ordered, key, {
      value: inGoKeyOrder(source[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return ordered as T;
}
