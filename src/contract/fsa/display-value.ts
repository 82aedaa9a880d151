import { describeText, describeValue } from '../schema/describe-value.ts';

/**
 * A spec value as a change shows it: strings bare (`16.4`, `20Gi`), anything else as JSON; short and free of
 * control characters either way, because it ends up in denial messages, warnings and audit annotations.
 */
export function displayValue(value: unknown): string {
  return typeof value === 'string' ? describeText(value) : describeValue(value);
}
