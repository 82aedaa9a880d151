import { parseFieldPath } from '../field-path.ts';
import { isPlainObject } from '../kube-object.ts';
import { changeRecord } from './change-record.ts';
import { displayValue } from './change-record.ts';
import { fieldValue } from './change-record.ts';
import type { Change, Classifier } from './machine.ts';

export interface KeyedListComparison<C extends string> {
  /** Path of the list below the compared value: `caches`. */
  path: string;
  /** The item field that identifies an item (an `x-kubernetes-list-map-keys` key): `name`. */
  key: string;
  /** What an absent list means; usually the schema's default, `[]`. */
  absentMeans?: readonly unknown[];
  added: C;
  removed: C;
  /** Classifiers for an item present in both lists; they compare the two versions of that item. */
  itemClassifiers: readonly Classifier<C>[];
}

/**
 * Compares a list of named items by name, not by position, so reordering is no change and a changed item is told
 * apart from one removed and another added. Items without a usable key, and duplicates after the first, are left
 * to schema validation; a side that is not a list at all is not compared.
 */
export function keyedListClassifier<C extends string>(list: KeyedListComparison<C>): Classifier<C> {
  const kinds = [...new Set([list.added, list.removed, ...list.itemClassifiers.flatMap((c) => c.kinds)])];
  const segments = parseFieldPath(list.path);
  const { path, key, absentMeans, added, removed } = list;
  return {
    kinds,
    target: { classify: 'keyed-list', path, keys: [key], items: list.itemClassifiers.map((classifier) => classifier.target) },
    form: {
      classify: 'keyed-list',
      path,
      key,
      ...(absentMeans === undefined ? {} : { absentMeans }),
      added,
      removed,
      items: list.itemClassifiers.map(({ kinds, form }) => ({ kinds, ...(form === undefined ? {} : { form }) })),
    },
    classify(oldValue, newValue, at) {
      const listField = `${at.field}.${list.path}`;
      const before = itemsByKey(fieldValue(oldValue, segments, list.absentMeans), list.key);
      const after = itemsByKey(fieldValue(newValue, segments, list.absentMeans), list.key);
      if (!before || !after) return [];
      const changes: Change<C>[] = [];
      for (const [key, { index, item }] of after) {
        const itemAt = { field: `${listField}[${index}]`, item: displayValue(key) };
        const previous = before.get(key);
        if (previous === undefined) changes.push(changeRecord(list.added, itemAt.field, itemAt));
        else for (const classifier of list.itemClassifiers) changes.push(...classifier.classify(previous.item, item, itemAt));
      }
      for (const key of before.keys()) {
        if (!after.has(key)) changes.push(changeRecord(list.removed, listField, { field: listField, item: displayValue(key) }));
      }
      return changes;
    },
  };
}

interface IndexedItem {
  index: number;
  item: Record<string, unknown>;
}

function itemsByKey(list: unknown, key: string): Map<string, IndexedItem> | undefined {
  if (!Array.isArray(list)) return undefined;
  const items = new Map<string, IndexedItem>();
  list.forEach((item: unknown, index) => {
    if (!isPlainObject(item) || !Object.hasOwn(item, key)) return;
    const name = item[key];
    if (typeof name === 'string' && !items.has(name)) items.set(name, { index, item });
  });
  return items;
}
