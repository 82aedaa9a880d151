import { parseFieldPath } from '../field-path.ts';
import { jsonEqual } from '../json-equal.ts';
import { changeRecord } from './change-record.ts';
import type { Comparison } from './comparisons.ts';
import { readingOf } from './classifier-form.ts';
import type { Classifier } from './machine.ts';
import { fieldValue } from './change-record.ts';

export interface FieldComparison<C extends string, V> {
  /** Path below the compared value: `storage.size`. */
  path: string;
  /** What an absent field means (the schema's default), so that writing the default explicitly is no change. */
  absentMeans?: unknown;
  /** The comparable value, or undefined when the raw value cannot be read. */
  read(raw: unknown): V | undefined;
  compare: Comparison<C, V>;
}

/**
 * Compares one field. A value that cannot be read on either side is not classified: schema validation rejects
 * it on the new object in the same request, and on the old object it means nothing was provisioned from it.
 */
export function fieldClassifier<C extends string, V>(comparison: FieldComparison<C, V>): Classifier<C> {
  const { path, absentMeans, read, compare } = comparison;
  const segments = parseFieldPath(path);
  const reading = readingOf(read as (raw: unknown) => unknown);
  return {
    kinds: compare.kinds,
    ...(reading !== undefined && compare.form !== undefined
      ? { form: { classify: 'field', path, ...(absentMeans === undefined ? {} : { absentMeans }), reading, comparison: compare.form } }
      : {}),
    classify(oldValue, newValue, at) {
      const from = fieldValue(oldValue, segments, absentMeans);
      const to = fieldValue(newValue, segments, absentMeans);
      if (jsonEqual(from, to)) return [];
      const fromValue = from === undefined ? undefined : read(from);
      const toValue = to === undefined ? undefined : read(to);
      if ((from !== undefined && fromValue === undefined) || (to !== undefined && toValue === undefined)) return [];
      const kind = compare.classify(fromValue, toValue);
      return kind === undefined ? [] : [changeRecord(kind, `${at.field}.${path}`, at, from, to)];
    },
  };
}
