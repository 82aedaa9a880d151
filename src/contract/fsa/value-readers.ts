import { parseQuantity, type Quantity } from '../quantity.ts';

// How classifiers read raw JSON values into comparable ones; undefined means "not readable", which leaves the
// field to schema validation (see fieldClassifier).

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
