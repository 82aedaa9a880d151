import type { Defaulter, Defaults } from '../values/object-rules.ts';

// A contract's `defaults` is one Defaulter or a list of them, applied in order, each to what the one before returned:
// the list is what lets the library's defaults (which compile to the policy floor) and functions of one's own (which
// stay the webhook's) sit side by side.

/** The contract's defaulters in the order they apply; empty without defaults. */
export function defaultersOf(contract: { readonly defaults?: Defaults }): readonly Defaulter[] {
  const { defaults } = contract;
  if (defaults === undefined) return [];
  return typeof defaults === 'function' ? [defaults] : defaults;
}

/** All of the contract's defaults as one Defaulter, as the mutating webhook applies them; undefined without any. */
export function contractDefaulter(contract: { readonly defaults?: Defaults }): Defaulter | undefined {
  const defaulters = defaultersOf(contract);
  if (defaulters.length === 0) return undefined;
  if (defaulters.length === 1) return defaulters[0];
  return (object) => defaulters.reduce((defaulted, defaulter) => defaulter(defaulted), object);
}
