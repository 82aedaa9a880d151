import { quoteAsGo } from '../../values/go-quote.ts';

/**
 * A value as the API server's field errors show it: strings as Go's %q quotes them, the rest as JSON. In full,
 * unlike `describeValue`, which shortens what clients send: a schema is the author's own, and the message must
 * equal the API server's.
 */
export function describeInFull(value: unknown): string {
  return typeof value === 'string' ? quoteAsGo(value) : (JSON.stringify(value) ?? 'null');
}
