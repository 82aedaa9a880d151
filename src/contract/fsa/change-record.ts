import { displayValue } from './display-value.ts';
import type { Change, Location } from './machine.ts';

/** A change at `field`, with display values for the sides that are present and the item it belongs to, if any. */
export function changeRecord<C extends string>(kind: C, field: string, at: Location, from?: unknown, to?: unknown): Change<C> {
  return {
    kind,
    field,
    ...(from === undefined ? {} : { from: displayValue(from) }),
    ...(to === undefined ? {} : { to: displayValue(to) }),
    ...(at.item === undefined ? {} : { item: at.item }),
  };
}
