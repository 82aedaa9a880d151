/**
 * The fields whose value is not undefined. A conversion builds objects from fields that may be absent; JSON has no
 * undefined, and deep equality and `in` tell an undefined-valued field from an absent one, so absent stays absent.
 */
export function presentFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const present: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) present[key] = value;
  }
  return present;
}
