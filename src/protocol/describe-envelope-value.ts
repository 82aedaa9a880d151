/**
 * A short description of a value found where a review's envelope expected something else: a short string as
 * itself, anything else by its kind. Never the value itself, which may be huge (and is the client's, not ours).
 */
export function describeEnvelopeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return value.length <= 64 ? JSON.stringify(value) : 'a long string';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
