import { compareQuantities } from '../values/quantity.ts';
import { compareVersions, parseVersion } from '../values/release-version.ts';
import { readInteger, readQuantity, readRelease, readString } from './value-readers.ts';

// A classifier built only from the library's parts is data as well as code: it keeps a description of what it
// compares, which the policy compiler (src/policy) turns into CEL for the API server. A classifier, reader or
// comparison written as a function of one's own has no such description; the webhook alone enforces it, and
// `crdgate fsa`/`crdgate manifests` say so.

/** How a field's raw JSON is read: which of the library's readers (readRelease, or parseVersion, reads a release). */
export type ValueReading = 'integer' | 'string' | 'quantity' | 'release';

/** The order a direction compares in: which of the library's comparators. */
export type ValueOrder = 'number' | 'quantity' | 'release';

export type ComparisonForm<C extends string> =
  | { compare: 'different'; kind: C }
  | { compare: 'direction'; order: ValueOrder; increase: C; decrease: C }
  | { compare: 'release-step'; upgrade: C; major: C; downgrade: C };

export type ClassifierForm<C extends string> =
  | { classify: 'field'; path: string; absentMeans?: unknown; reading: ValueReading; comparison: ComparisonForm<C> }
  | {
      classify: 'keyed-list';
      path: string;
      /** The item fields that identify an item together: one, or the list's x-kubernetes-list-map-keys. */
      keys: readonly string[];
      absentMeans?: readonly unknown[];
      added: C;
      removed: C;
      /** One entry per item classifier, in order: its kinds, and its form unless it is a function of one's own. */
      items: readonly { kinds: readonly C[]; form?: ClassifierForm<C> }[];
    };

/**
 * Where a classifier compares, as data, for every classifier built from the library's parts (a reader or
 * comparison of one's own included): the path below the compared value, the list's keys, and which of the
 * library's readers reads the field (`custom` for one's own).
 */
export type ClassifierTarget =
  | {
      classify: 'field';
      path: string;
      reading: ValueReading | 'custom';
      /**
       * Why the classifier's reader cannot read its absentMeans, found when the classifier was made: a change to or
       * from an absent field would then compare as no change, so the self-check refuses the machine.
       */
      absentMeansUnread?: string;
    }
  | { classify: 'keyed-list'; path: string; keys: readonly string[]; items: readonly (ClassifierTarget | undefined)[] };

/** Numbers in their natural order: the comparator `byDirection` needs for integers, as data. */
export function compareNumbers(a: number, b: number): number {
  return a - b;
}

/** Which library reader `read` is; undefined for a reader of one's own. */
export function readingOf(read: (raw: unknown) => unknown): ValueReading | undefined {
  if (read === readInteger) return 'integer';
  if (read === readString) return 'string';
  if (read === readQuantity) return 'quantity';
  if (read === readRelease || read === parseVersion) return 'release';
  return undefined;
}

/** Which library comparator `compare` is; undefined for a comparator of one's own. */
export function orderOf(compare: (a: never, b: never) => number): ValueOrder | undefined {
  if (compare === (compareNumbers as unknown)) return 'number';
  if (compare === (compareQuantities as unknown)) return 'quantity';
  if (compare === (compareVersions as unknown)) return 'release';
  return undefined;
}
