import { parseQuantity, type Quantity } from '../values/quantity.ts';
import { parseVersion } from '../values/release-version.ts';
import { describeValue } from '../values/describe-value.ts';

// How classifiers read raw JSON values into comparable ones. undefined means "not readable", which leaves the
// field to schema validation (see fieldClassifier): a value of the wrong type, which the schema refuses anyway.
// cannotRead(reason) means "a valid value whose meaning the reader cannot tell" (an image by digest, when the
// reader wants its version): the machine then refuses the change as undecidable, unless a person overrides it.
// Each library reader is for some schema shapes (classifier-reach.ts says which, and defineContract refuses it on
// another), and reads every value the API server accepts for them, or cannotReads it: undefined is only ever a
// value those shapes refuse. value-readers.table.test.ts holds them to the API server's own answers.

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
  return (
    typeof value === 'object' && value !== null && (value as { [cannotReadBrand]?: unknown })[cannotReadBrand] === true
  );
}

/** The reason a number JavaScript holds only approximately (past 2^53) cannot be read. */
function inexactNumber(raw: number): CannotRead {
  return cannotRead(`${String(raw)} is past 2^53, which crdgate cannot hold exactly`);
}

/**
 * An integer, for a field of `type: integer`: the API server takes every int64 there, and JavaScript holds those
 * past 2^53 only approximately, so they cannot be read (fail closed). Anything else is no integer: the schema's.
 */
export function readInteger(raw: unknown): number | undefined | CannotRead {
  if (Number.isSafeInteger(raw)) return raw as number;
  return Number.isInteger(raw) ? inexactNumber(raw as number) : undefined;
}

/** A string, for a field of `type: string` (with any format, pattern or enum): every string reads, '' included. */
export function readString(raw: unknown): string | undefined {
  return typeof raw === 'string' ? raw : undefined;
}

/**
 * A Kubernetes quantity, compared exactly: `2Gi` and `2048Mi` are the same size. It reads what resource.Quantity
 * holds: a string (`type: string`, or controller-gen's int-or-string with a pattern) and an integer (`1024` in an
 * int-or-string or integer field is 1024). A string that is no quantity cannot be read (a plain string field takes
 * any, and controller-gen's pattern takes a few that Kubernetes cannot parse, such as `1e2.5`), nor can an integer
 * past 2^53. A fraction is for no field a quantity is read from (int-or-string refuses it): the schema's.
 */
export function readQuantity(raw: unknown): Quantity | undefined | CannotRead {
  if (typeof raw === 'string')
    return parseQuantity(raw) ?? cannotRead(`${describeValue(raw)} is not a Kubernetes quantity`);
  if (!Number.isInteger(raw)) return undefined;
  if (!Number.isSafeInteger(raw)) return inexactNumber(raw as number);
  // A new object, never the one parseQuantity keeps for the string: whenDifferent tells 1024 from '1024', as the
  // policy's CEL does.
  return Object.freeze({ numerator: BigInt(raw as number), scale: 0 });
}

/**
 * A release number (`16.4`, `3.4.2`), for a field of `type: string`: a string that is none cannot be read (fail
 * closed), where parseVersion, a parser, returns undefined. A classifier given parseVersion as its reader reads
 * with readRelease.
 */
export function readRelease(raw: unknown): number[] | undefined | CannotRead {
  if (typeof raw !== 'string') return undefined;
  return parseVersion(raw) ?? cannotRead(`${describeValue(raw)} is not a release number such as 16.4`);
}
