/**
 * A value as the API server's field errors show it: strings quoted, the rest as JSON. In full, unlike
 * `describeValue`, which shortens what clients send: a schema is the author's own, and the message must equal the
 * API server's.
 */
export function describeInFull(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
