import { formatBinaryQuantity, parseQuantity } from '../../index.ts';

// v1alpha1 counts storage in whole GiB and cache memory in whole MiB, where later versions hold quantities.

export const gibibyte = 1n << 30n;
export const mebibyte = 1n << 20n;

/**
 * How many whole units a quantity shows as, rounded up: a volume is provisioned at least as large as requested,
 * and a cache gets no less memory than asked for, so rounding down would understate both.
 * Undefined when the value is no quantity, is negative, or the count is too large to be an exact JSON number.
 */
export function wholeUnitsRoundedUp(value: unknown, unitBytes: bigint): number | undefined {
  if (typeof value !== 'string') return undefined;
  const quantity = parseQuantity(value);
  if (!quantity || quantity.numerator < 0n) return undefined;
  const divisor = 10n ** BigInt(quantity.scale) * unitBytes;
  const units = (quantity.numerator + divisor - 1n) / divisor;
  return units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : undefined;
}

/** The quantity a count of whole units stands for, in its canonical spelling: 50 GiB -> "50Gi", 1024 MiB -> "1Gi". */
export function formatWholeUnits(count: number, unitBytes: bigint): string {
  return formatBinaryQuantity(BigInt(count) * unitBytes);
}

/** True when a count in a version that holds only counts restores this exact spelling of the quantity. */
export function spelledAsWholeUnits(value: unknown, count: number | undefined, unitBytes: bigint): boolean {
  return count !== undefined && value === formatWholeUnits(count, unitBytes);
}
