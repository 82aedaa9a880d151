import { orderOf, type ComparisonForm } from './classifier-form.ts';

/**
 * How a classifier tells two readable values of one field apart: which kind of change, if any, leads from one to
 * the other. The kinds are listed up front so the machine's self-check knows what a classifier can report.
 */
export interface Comparison<C extends string, V> {
  kinds: readonly C[];
  /** The comparison as data when it is the library's with the library's comparator; the policy compiles it. */
  form?: ComparisonForm<C>;
  /** `undefined` on either side means the field is absent there; an `undefined` result means no change. */
  classify(from: V | undefined, to: V | undefined): C | undefined;
  /**
   * Set by comparisons that order two present values only (byDirection, byReleaseStep): a field that appears or
   * disappears is then no kind of theirs, and fieldClassifier reports it as undecidable rather than as no change.
   */
  ordersPresentValues?: boolean;
}

/** Any difference at all, including setting or removing the field, is a change of `kind`. */
export function whenDifferent<C extends string, V>(
  kind: C,
  equal: (a: V, b: V) => boolean = Object.is,
): Comparison<C, V> {
  return {
    kinds: [kind],
    // Object.is on read values is a difference of the raw JSON: equal primitives read equal, and readers of
    // quantities and releases return a new object each time. An equality of one's own is not data.
    ...(equal === Object.is ? { form: { compare: 'different', kind } } : {}),
    classify(from, to) {
      if (from === undefined || to === undefined) return from === to ? undefined : kind;
      return equal(from, to) ? undefined : kind;
    },
  };
}

/**
 * Growing and shrinking are different kinds of change. A value that appears or disappears has no direction: give
 * the field an absentMeans (what the operator does without it), or fieldClassifier reports the change as undecidable.
 */
export function byDirection<C extends string, V>(direction: {
  compare(a: V, b: V): number;
  increase: C;
  decrease: C;
}): Comparison<C, V> {
  const { compare, increase, decrease } = direction;
  const order = orderOf(compare);
  return {
    kinds: increase === decrease ? [increase] : [increase, decrease],
    ...(order === undefined ? {} : { form: { compare: 'direction', order, increase, decrease } }),
    ordersPresentValues: true,
    classify(from, to) {
      if (from === undefined || to === undefined) return undefined;
      const order = compare(to, from);
      if (order > 0) return increase;
      return order < 0 ? decrease : undefined;
    },
  };
}

/**
 * Release numbers (`16.4`, `3.4.2`, parsed into their parts): a lower one is a downgrade, a different first part
 * a major upgrade, any other higher one an upgrade (minor or patch). `compare` orders them numerically, so that
 * 16.10 is above 16.9. A release that appears or disappears is none of these (see byDirection).
 */
export function byReleaseStep<C extends string>(steps: {
  compare(a: readonly number[], b: readonly number[]): number;
  upgrade: C;
  major: C;
  downgrade: C;
}): Comparison<C, readonly number[]> {
  const { compare, upgrade, major, downgrade } = steps;
  return {
    kinds: [upgrade, major, downgrade],
    ...(orderOf(compare) === 'release' ? { form: { compare: 'release-step', upgrade, major, downgrade } } : {}),
    ordersPresentValues: true,
    classify(from, to) {
      if (from === undefined || to === undefined) return undefined;
      const order = compare(to, from);
      if (order === 0) return undefined;
      if (order < 0) return downgrade;
      return to[0] === from[0] ? upgrade : major;
    },
  };
}
