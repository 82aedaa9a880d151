import type { Change, Location } from './machine.ts';
import { describeText, describeValue } from '../values/describe-value.ts';
import { valueAtSegments } from '../values/field-path.ts';

// The change records the classifiers produce: a field's value with absence resolved, and the change as messages show it.

/** A change at `field`, with display values for the sides that are present and the item it belongs to, if any. */
export function changeRecord<C extends string>(
  kind: C,
  field: string,
  at: Location,
  from?: unknown,
  to?: unknown,
): Change<C> {
  return {
    kind,
    field,
    ...(from === undefined ? {} : { from: displayValue(from) }),
    ...(to === undefined ? {} : { to: displayValue(to) }),
    ...(at.item === undefined ? {} : { item: at.item }),
  };
}

/**
 * A spec value as a change shows it: strings bare (`16.4`, `20Gi`), anything else as JSON; short and free of
 * control characters either way, because it ends up in denial messages, warnings and audit annotations. The empty
 * string is quoted (`""`), so that no message shows a blank where a value is; an absent one reads `(none)`.
 */
export function displayValue(value: unknown): string {
  return typeof value === 'string' && value !== '' ? describeText(value) : describeValue(value);
}

/**
 * A field's value with absence resolved: null counts as absent (the API server drops the nulls of non-nullable
 * fields anyway), and an absent field means `absentMeans`, so that writing a default explicitly is no change.
 * The path comes parsed: classifiers parse theirs once, when the contract is compiled, not on every request.
 */
export function fieldValue(value: unknown, path: ReadonlyArray<string | number>, absentMeans?: unknown): unknown {
  const found = valueAtSegments(value, path);
  return found === undefined || found === null ? absentMeans : found;
}
