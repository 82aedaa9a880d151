// Go's encoder writes a map's keys sorted by their UTF-8 bytes, and the API server sends objects so (to a webhook,
// to a conversion): what is made from their order (the JSON of a stash, a list of differences) is then made as it
// is for the API server.
import { setOwn } from './kube-object.ts';

/** Compares two keys as Go's encoder orders a map's. */
export function goKeyOrder(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, UTF-16 code units order as their UTF-8 bytes do; past them (a surrogate pair against a
    // character from U+E000) they do not, and the bytes decide.
    if (x < 0xd800 && y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
  }
  return a.length - b.length;
}

/** `value` with the keys of each object in Go's order. */
export function inGoKeyOrder<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => inGoKeyOrder(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort(goKeyOrder)) setOwn(ordered, key, inGoKeyOrder(source[key]));
  return ordered as T;
}
