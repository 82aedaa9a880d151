import { parseQuantity, type Quantity } from '../quantity.ts';

// How classifiers read raw JSON values into comparable ones. undefined means "not readable", which leaves the
// field to schema validation (see fieldClassifier): a value of the wrong type, which the schema refuses anyway.
// cannotRead(reason) means "a valid value whose meaning the reader cannot tell" (an image by digest, when the
// reader wants its version): the machine then refuses the change as undecidable, unless a person overrides it.

// A global symbol, so that a reading of another copy of crdgate (a user's contract imports its own) is told apart too.
const cannotReadBrand: unique symbol = Symbol.for('crdgate.cannotRead') as never;

/** A reading that fails closed: see cannotRead. */
export interface CannotRead {
  readonly [cannotReadBrand]: true;
  /** Why the value cannot be read, for the denial: `a digest names no version`. */
  readonly reason: string;
}

/**
 * What a reader returns for a value it cannot tell the meaning of, distinctly from undefined (a value the schema
 * refuses): a change to or from it is refused as undecidable, naming the field, the values and `reason`. As a
 * classifier's `absentMeans`, it makes an absent field unreadable too (an operator's default image, whose version
 * the contract cannot know), so that setting or removing the field is undecidable rather than no change.
 */
export function cannotRead(reason: string): CannotRead {
  return Object.freeze({ [cannotReadBrand]: true as const, reason: String(reason) });
}

export function isCannotRead(value: unknown): value is CannotRead {
  return typeof value === 'object' && value !== null && (value as { [cannotReadBrand]?: unknown })[cannotReadBrand] === true;
}

export function readInteger(raw: unknown): number | undefined {
  return Number.isSafeInteger(raw) ? (raw as number) : undefined;
}

export function readString(raw: unknown): string | undefined {
  return typeof raw === 'string' ? raw : undefined;
}

/** A Kubernetes quantity, compared exactly: `2Gi` and `2048Mi` are the same size. */
export function readQuantity(raw: unknown): Quantity | undefined {
  return typeof raw === 'string' ? parseQuantity(raw) : undefined;
}
