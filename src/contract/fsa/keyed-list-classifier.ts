import { parseFieldPath } from '../values/field-path.ts';
import { isPlainObject } from '../values/kube-object.ts';
import { jsonEqual } from '../values/json-equal.ts';
import { changeRecord } from './change-record.ts';
import { displayValue } from './change-record.ts';
import { absentValue } from '../values/describe-value.ts';
import { fieldValue } from './change-record.ts';
import type { Change, Classifier, Location } from './machine.ts';

export interface KeyedListComparison<C extends string> {
  /** Path of the list below the compared value: `caches`. */
  path: string;
  /**
   * The item field that identifies an item, or the fields that do together: the list's `x-kubernetes-list-map-keys`
   * (`name`; `['containerPort', 'protocol']`). A key may hold a string, an integer, a boolean or a number.
   */
  key: string | readonly string[];
  /**
   * What an absent list means; usually the schema's default, `[]`. Without it, a list with items that appears or
   * disappears is an undecidable change.
   */
  absentMeans?: readonly unknown[];
  added: C;
  removed: C;
  /** Classifiers for an item present in both lists; they compare the two versions of that item. */
  itemClassifiers: readonly Classifier<C>[];
}

/**
 * Compares a list of keyed items by key, not by position, so reordering is no change and a changed item is told
 * apart from one removed and another added. Keys are compared as the API server compares them: by value and type
 * (the integer 1 and the string "1" are two keys), a missing or null key being a key of its own. Items that are not
 * objects are left to schema validation, and so is a side that is not a list at all. Where the items cannot be told
 * apart (two share a key, or a key is an integer past 2^53, which JavaScript cannot hold exactly), a changed list
 * fails closed: one undecidable change of the list; so does a list with items appearing or disappearing where no
 * absentMeans says what an absent list means.
 */
export function keyedListClassifier<C extends string>(list: KeyedListComparison<C>): Classifier<C> {
  const kinds = [...new Set([list.added, list.removed, ...list.itemClassifiers.flatMap((c) => c.kinds)])];
  const segments = parseFieldPath(list.path);
  const { path, absentMeans, added, removed } = list;
  const keys: readonly string[] = typeof list.key === 'string' ? [list.key] : [...list.key];
  return {
    kinds,
    target: { classify: 'keyed-list', path, keys, items: list.itemClassifiers.map((classifier) => classifier.target) },
    form: {
      classify: 'keyed-list',
      path,
      keys,
      ...(absentMeans === undefined ? {} : { absentMeans }),
      added,
      removed,
      items: list.itemClassifiers.map(({ kinds, form }) => ({ kinds, ...(form === undefined ? {} : { form }) })),
    },
    classify(oldValue, newValue, at) {
      const listField = `${at.field}.${list.path}`;
      const oldList = fieldValue(oldValue, segments, list.absentMeans);
      const newList = fieldValue(newValue, segments, list.absentMeans);
      const before = itemsByKey(oldList, keys);
      const after = itemsByKey(newList, keys);
      if (before === undefined || after === undefined) {
        // A list set or removed where nothing says what its absence means: its items added or removed, or not.
        const appears = oldList === undefined ? after : newList === undefined ? before : undefined;
        if (appears === undefined || appears.items.size === 0) return [];
        return [
          {
            ...changeRecord(added, listField, at, oldList, newList),
            undecidable: 'an absent list is no list of items (absentMeans would say what absence means)',
          },
        ];
      }
      const unreadable = before.unreadable ?? after.unreadable;
      if (unreadable !== undefined) {
        if (jsonEqual(oldList, newList)) return [];
        return [
          {
            ...changeRecord(added, listField, at, oldList, newList),
            undecidable: `${unreadable}, so its items cannot be told apart`,
          },
        ];
      }
      const changes: Change<C>[] = [];
      for (const [id, { index, item, name }] of after.items) {
        const itemAt: Location = { field: `${listField}[${index}]`, item: name };
        const previous = before.items.get(id);
        if (previous === undefined) changes.push(changeRecord(added, itemAt.field, itemAt));
        else
          for (const classifier of list.itemClassifiers)
            changes.push(...classifier.classify(previous.item, item, itemAt));
      }
      for (const [id, { name }] of before.items) {
        if (!after.items.has(id)) changes.push(changeRecord(removed, listField, { field: listField, item: name }));
      }
      return changes;
    },
  };
}

interface KeyedItem {
  index: number;
  item: Record<string, unknown>;
  /** How messages name the item: its key's value, or `key=value` pairs for several keys. */
  name: string;
}

interface KeyedItems {
  /** By the item's identity: its keys' values, typed. */
  items: Map<string, KeyedItem>;
  /** Why the items cannot be told apart, when they cannot. */
  unreadable?: string;
}

function itemsByKey(list: unknown, keys: readonly string[]): KeyedItems | undefined {
  if (!Array.isArray(list)) return undefined;
  const items = new Map<string, KeyedItem>();
  let unreadable: string | undefined;
  list.forEach((item: unknown, index) => {
    if (!isPlainObject(item)) return;
    const values = keys.map((key) => (Object.hasOwn(item, key) ? item[key] : undefined));
    const inexact = values.find((value) => Number.isInteger(value) && !Number.isSafeInteger(value));
    if (inexact !== undefined)
      unreadable ??= `a key of ${String(inexact)} is past 2^53, which crdgate cannot hold exactly`;
    // JSON tells the integer 1 from the string "1"; a missing and a null key are the same to the API server, which
    // drops the nulls of fields that are not nullable, and a key cannot be nullable.
    const id = JSON.stringify(values.map((value) => (value === undefined ? null : value)));
    const name = itemName(keys, values);
    if (items.has(id)) unreadable ??= `two items have the ${keys.length === 1 ? 'key' : 'keys'} ${name}`;
    else items.set(id, { index, item, name });
  });
  return { items, ...(unreadable === undefined ? {} : { unreadable }) };
}

/** `tiles` for one key; `port=80, protocol=TCP` for several. A missing key reads `(none)`, as messages show absence. */
function itemName(keys: readonly string[], values: readonly unknown[]): string {
  const shown = values.map((value) => (value === null ? absentValue : displayValue(value)));
  return keys.length === 1 ? shown[0]! : keys.map((key, index) => `${key}=${shown[index]}`).join(', ');
}
