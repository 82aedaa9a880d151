import { parseFieldPath } from '../values/field-path.ts';
import { jsonEqual } from '../values/json-equal.ts';
import { changeRecord } from './change-record.ts';
import type { Comparison } from './comparisons.ts';
import { readingOf } from './classifier-form.ts';
import type { Classifier } from './machine.ts';
import { cannotRead, isCannotRead, readRelease, type CannotRead } from './value-readers.ts';
import { fieldValue } from './change-record.ts';
import { describeValue } from '../values/describe-value.ts';

export interface FieldComparison<C extends string, V> {
  /** Path below the compared value: `storage.size`. */
  path: string;
  /**
   * What an absent field means (the schema's default), so that writing the default explicitly is no change;
   * `cannotRead(reason)` when an absent field means something the contract cannot know (the operator's default).
   * It goes through `read` like any value of the field: one the reader cannot read is refused when the contract is
   * defined (the self-check), since setting or removing the field would otherwise compare as no change.
   */
  absentMeans?: unknown;
  /**
   * The comparable value; undefined when the raw value cannot be read (a wrong type: left to the schema);
   * `cannotRead(reason)` when it is valid but its meaning cannot be told (the change is then undecidable).
   */
  read(raw: unknown): V | undefined | CannotRead;
  compare: Comparison<C, V>;
}

/**
 * Compares one field. A value that cannot be read on either side is not classified: schema validation rejects
 * it on the new object in the same request, and on the old object it means nothing was provisioned from it. A
 * value the reader says it cannot read (cannotRead) fails closed instead: the change is reported as undecidable,
 * and so is a field that appears or disappears where the comparison orders present values only (byDirection).
 */
export function fieldClassifier<C extends string, V>(comparison: FieldComparison<C, V>): Classifier<C> {
  const { path, absentMeans, compare } = comparison;
  const segments = parseFieldPath(path);
  const reading = readingOf(comparison.read as (raw: unknown) => unknown);
  // parseVersion is a parser: undefined for any text that is no release. As a reader it must fail closed on a
  // string, which the field's schema accepts, so it reads as readRelease does.
  const read = reading === 'release' ? (readRelease as (raw: unknown) => V | undefined | CannotRead) : comparison.read;
  const absentMeansUnread = unreadAbsentMeans(read, absentMeans);
  return {
    kinds: compare.kinds,
    target: {
      classify: 'field',
      path,
      reading: reading ?? 'custom',
      ...(absentMeansUnread === undefined ? {} : { absentMeansUnread }),
    },
    ...(reading !== undefined && compare.form !== undefined
      ? {
          form: {
            classify: 'field',
            path,
            ...(absentMeans === undefined ? {} : { absentMeans }),
            reading,
            comparison: compare.form,
          },
        }
      : {}),
    classify(oldValue, newValue, at) {
      const from = fieldValue(oldValue, segments, absentMeans);
      const to = fieldValue(newValue, segments, absentMeans);
      if (jsonEqual(from, to)) return [];
      const fromValue = readSide(read, from);
      const toValue = readSide(read, to);
      const field = `${at.field}.${path}`;
      if (isCannotRead(fromValue) || isCannotRead(toValue)) {
        const reason = isCannotRead(fromValue) ? fromValue.reason : (toValue as CannotRead).reason;
        return [{ ...changeRecord(compare.kinds[0]!, field, at, shown(from), shown(to)), undecidable: reason }];
      }
      if ((from !== undefined && fromValue === undefined) || (to !== undefined && toValue === undefined)) return [];
      const kind = compare.classify(fromValue, toValue);
      if (
        kind === undefined &&
        compare.ordersPresentValues === true &&
        (fromValue === undefined) !== (toValue === undefined)
      ) {
        // A size or release set or removed: larger or smaller than what the operator does without it, nobody can say.
        const reason =
          'an absent value is neither smaller nor larger than a present one (absentMeans would say what absence means)';
        return [{ ...changeRecord(compare.kinds[0]!, field, at, from, to), undecidable: reason }];
      }
      return kind === undefined ? [] : [changeRecord(kind, field, at, from, to)];
    },
  };
}

function readSide<V>(read: (raw: unknown) => V | undefined | CannotRead, raw: unknown): V | undefined | CannotRead {
  if (raw === undefined) return undefined;
  if (isCannotRead(raw)) return raw; // absentMeans: cannotRead(...)
  try {
    return read(raw);
  } catch (error) {
    // Classifiers must not throw; a reader of one's own that does cannot tell what the value means.
    return cannotRead(`the reader failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Why `read` cannot read `absentMeans`, in words; undefined when it reads it, and for cannotRead(...), which says on
 * purpose that absence cannot be judged. A value the reader leaves to the schema (another type than the field's) or
 * cannot tell the meaning of would make every change to or from an absent field read wrong: no change, or undecidable
 * for a reason about a value nobody wrote.
 */
function unreadAbsentMeans<V>(
  read: (raw: unknown) => V | undefined | CannotRead,
  absentMeans: unknown,
): string | undefined {
  if (absentMeans === undefined || isCannotRead(absentMeans)) return undefined;
  const fix = 'give the default as the field holds it, or cannotRead(reason) where absence cannot be judged';
  const shown = describeValue(absentMeans);
  const value = readSide(read, absentMeans);
  if (value === undefined)
    return `its absentMeans ${shown} is not a value its reader reads (a value of another type than the field's), so setting or removing the field would compare as no change: ${fix}`;
  if (isCannotRead(value))
    return `its reader cannot tell what its absentMeans ${shown} means (${value.reason}): ${fix}`;
  return undefined;
}

/** A raw value as a change shows it: an absent field that means cannotRead(...) shows as absent. */
function shown(raw: unknown): unknown {
  return isCannotRead(raw) ? undefined : raw;
}
