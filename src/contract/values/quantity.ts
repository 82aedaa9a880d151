/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), held exactly.
 *
 * Grammar, as apimachinery documents it:
 *   <quantity>     ::= <signedNumber><suffix>
 *   <signedNumber> ::= [+-]? ( <digits> | <digits>.<digits> | <digits>. | .<digits> )
 *   <suffix>       ::= <binarySI> | <decimalExponent> | <decimalSI>
 *   <binarySI>     ::= Ki | Mi | Gi | Ti | Pi | Ei
 *   <decimalSI>    ::= n | u | m | "" | k | M | G | T | P | E
 *   <decimalExponent> ::= ( e | E ) [+-]? <digits>
 *
 * Deliberate differences from apimachinery:
 * - values are exact rationals: no rounding up to nano units and no capping at 2^63-1, so comparisons never lie;
 * - apimachinery's hand-written parser accepts a few digit-less strings ("", "-", ".", "Gi") as zero; they are
 *   typos, so they are rejected here;
 * - strings longer than {@link maxQuantityLength} characters and exponents beyond ±{@link maxDecimalExponent} are
 *   rejected, which bounds the cost of the exact arithmetic on untrusted input (no real quantity comes close).
 */

/** value = numerator / 10^scale; normalised (scale >= 0, and numerator is not a multiple of 10 when scale > 0). */
export interface Quantity {
  readonly numerator: bigint;
  readonly scale: number;
}

export const maxQuantityLength = 128;
export const maxDecimalExponent = 1000;

const quantityPattern = /^([+-]?)(\d*)(?:\.(\d*))?(?:([numkMGTPE]|[KMGTPE]i)|[eE]([+-]?\d+))?$/;

const decimalSuffixExponents: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const binarySuffixes = [
  ['Ei', 60n],
  ['Pi', 50n],
  ['Ti', 40n],
  ['Gi', 30n],
  ['Mi', 20n],
  ['Ki', 10n],
] as const;

const binarySuffixShifts: Readonly<Record<string, bigint>> = Object.fromEntries(binarySuffixes);

interface QuantityParts {
  negative: boolean;
  integerDigits: string;
  fractionDigits: string;
  /** A power of ten from a decimal SI suffix or an exponent. */
  decimalExponent: number;
  /** A power of two from a binary SI suffix. */
  binaryShift: bigint;
}

function splitQuantity(text: string): QuantityParts | undefined {
  if (text.length > maxQuantityLength) return undefined;
  const match = quantityPattern.exec(text);
  if (!match) return undefined;
  const [, sign = '', integerDigits = '', fractionDigits = '', suffix = '', exponent] = match;
  if (integerDigits === '' && fractionDigits === '') return undefined;
  let decimalExponent = 0;
  let binaryShift = 0n;
  if (exponent !== undefined) {
    decimalExponent = Number(exponent);
    if (Math.abs(decimalExponent) > maxDecimalExponent) return undefined;
  } else if (suffix.endsWith('i')) {
    binaryShift = binarySuffixShifts[suffix] ?? 0n;
  } else if (suffix !== '') {
    decimalExponent = decimalSuffixExponents[suffix] ?? 0;
  }
  return { negative: sign === '-', integerDigits, fractionDigits, decimalExponent, binaryShift };
}

/** True when the text is a quantity; cheaper than parsing (no big-integer arithmetic), for validation. */
export function isQuantity(text: string): boolean {
  return recentlyParsed.has(text) ? recentlyParsed.get(text) !== undefined : splitQuantity(text) !== undefined;
}

// The same few spellings ("50Gi", "2Gi") come back on every admission request, each parsed several times (schema,
// invariants, the FSA), and exact parsing is BigInt arithmetic. A memo of a pure function, bounded:
// whatever clients send, it holds at most this many entries, and is emptied when full.
const maxRecentlyParsed = 512;
const recentlyParsed = new Map<string, Quantity | undefined>();

export function parseQuantity(text: string): Quantity | undefined {
  if (recentlyParsed.has(text)) return recentlyParsed.get(text);
  const parsed = parseQuantityText(text);
  if (recentlyParsed.size >= maxRecentlyParsed) recentlyParsed.clear();
  // Frozen: every caller with the same spelling shares this object.
  recentlyParsed.set(text, parsed && Object.freeze(parsed));
  return parsed;
}

function parseQuantityText(text: string): Quantity | undefined {
  const parts = splitQuantity(text);
  if (!parts) return undefined;
  let numerator = BigInt(parts.integerDigits + parts.fractionDigits) << parts.binaryShift;
  let scale = parts.fractionDigits.length - parts.decimalExponent;
  if (scale < 0) {
    numerator *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normalise(parts.negative ? -numerator : numerator, scale);
}

function normalise(numerator: bigint, scale: number): Quantity {
  if (numerator === 0n) return { numerator, scale: 0 };
  while (scale > 0 && numerator % 10n === 0n) {
    numerator /= 10n;
    scale -= 1;
  }
  return { numerator, scale };
}

function numeratorAtScale(quantity: Quantity, scale: number): bigint {
  return quantity.numerator * 10n ** BigInt(scale - quantity.scale);
}

export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const left = numeratorAtScale(a, scale);
  const right = numeratorAtScale(b, scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const scale = Math.max(a.scale, b.scale);
  return normalise(numeratorAtScale(a, scale) + numeratorAtScale(b, scale), scale);
}

/** "1m" is a thousandth, so not every quantity can be a count of bytes or replicas. */
export function isWholeNumber(quantity: Quantity): boolean {
  return quantity.scale === 0;
}

/** The exact integer value, or undefined when the quantity has a fractional part. */
export function quantityToBigInt(quantity: Quantity): bigint | undefined {
  return quantity.scale === 0 ? quantity.numerator : undefined;
}

/** The nearest double: for display and metrics only, never for decisions. */
export function quantityToNumber(quantity: Quantity): number {
  // Through a decimal string, so the one rounding step is the correctly rounded one.
  return Number(`${quantity.numerator}e-${quantity.scale}`);
}

/**
 * A whole number of bytes in the largest binary suffix that divides it exactly: 53687091200n -> "50Gi",
 * 1610612736n -> "1536Mi", 1000n -> "1000".
 */
export function formatBinaryQuantity(bytes: bigint): string {
  const sign = bytes < 0n ? '-' : '';
  const magnitude = bytes < 0n ? -bytes : bytes;
  if (magnitude !== 0n) {
    for (const [suffix, shift] of binarySuffixes) {
      if (magnitude % (1n << shift) === 0n) return `${sign}${magnitude >> shift}${suffix}`;
    }
  }
  return `${sign}${magnitude}`;
}
