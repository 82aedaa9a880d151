import { parseFieldPath, renderFieldPath, type PathSegment } from '../values/field-path.ts';
import { isPlainObject } from '../values/kube-object.ts';
import { maxObjectDepth } from '../values/value-shape.ts';
import { displayValue } from './change-record.ts';
import type { Change, Classifier } from './machine.ts';
import { specCoverage, type CoverageNode, type KeyedListCoverage } from './spec-coverage.ts';

// The spec changes no classifier names: the fields that differ between the old and the new spec (absent and null
// alike, as the classifiers compare) and that no classifier covers (spec-coverage.ts), or, for a classifier that
// declares no target, that none of its changes names. Linear in the size of the two specs; it names the first few
// and counts the rest.

/** One field that changed and that no change kind names; the values as a change shows them, absent when absent. */
export interface UnclassifiedChange {
  /** Kubernetes-style path of the field: `spec.tuning.workMem`. */
  field: string;
  from?: string;
  to?: string;
}

export interface UnclassifiedChangesFound {
  /** The first ones, in the order of the spec. */
  changes: UnclassifiedChange[];
  /** How many more were found than are named. */
  more: number;
}

/** One classifier's changes in an update, so that those of a classifier without a target cover their fields. */
export interface ClassifiedBy<C extends string> {
  classifier: Classifier<C>;
  changes: readonly Change<C>[];
}

/** How many unclassified changes an update's decision names; a denial per change, then one for the rest. */
export const unclassifiedChangesNamed = 8;

/**
 * Below this depth a differing value is named as a whole at this depth, so that a deeply nested change names a
 * field of a bounded length; values nested deeper than the server takes are never compared but are a change.
 */
const namingDepth = 32;

export function findUnclassifiedChanges<C extends string>(
  classified: readonly ClassifiedBy<C>[],
  oldSpec: unknown,
  newSpec: unknown,
  limit: number = unclassifiedChangesNamed,
): UnclassifiedChangesFound {
  const { root } = specCoverage(classified.map(({ classifier }) => classifier));
  const found: UnclassifiedChangesFound = { changes: [], more: 0 };
  const note = (path: readonly PathSegment[], from: unknown, to: unknown) => {
    if (found.changes.length >= limit) {
      found.more += 1;
      return;
    }
    found.changes.push({
      field: renderFieldPath('spec', path),
      ...(from === undefined ? {} : { from: displayValue(from) }),
      ...(to === undefined ? {} : { to: displayValue(to) }),
    });
  };
  // The spec itself is compared field by field: an absent spec has no fields, as an empty one.
  comparePartly({ note }, oldSpec ?? {}, newSpec ?? {}, root, reportedFields(classified), []);
  return found;
}

/** Which fields the changes of classifiers without a target name (and those of item classifiers without one). */
interface ReportedNode {
  end: boolean;
  children: Map<PathSegment, ReportedNode>;
}

function reportedFields<C extends string>(classified: readonly ClassifiedBy<C>[]): ReportedNode {
  const root: ReportedNode = { end: false, children: new Map() };
  for (const { changes } of classified) {
    for (const { field } of changes) {
      const [first, ...below] = parseFieldPath(field);
      if (first !== 'spec') continue;
      let node = root;
      for (const segment of below) {
        let child = node.children.get(segment);
        if (child === undefined) node.children.set(segment, (child = { end: false, children: new Map() }));
        node = child;
      }
      node.end = true;
    }
  }
  return root;
}

interface Walk {
  note(path: readonly PathSegment[], from: unknown, to: unknown): void;
}

function compare(
  walk: Walk,
  before: unknown,
  after: unknown,
  coverage: CoverageNode | undefined,
  reported: ReportedNode | undefined,
  path: readonly PathSegment[],
): void {
  const [from, to] = [presentOrUndefined(before), presentOrUndefined(after)];
  if (from === undefined && to === undefined) return;
  if (coverage?.covered) return;
  if (coverage?.keyedList) return compareKeyedList(walk, from, to, coverage.keyedList, reported, path);
  // A change a classifier without a target reported covers its field; a keyed list's own field (where its removals
  // are reported) is decided above, item by item.
  if (reported?.end) return;
  if (path.length >= namingDepth) {
    if (!sameJson(from, to, maxObjectDepth - path.length)) walk.note(path, from, to);
    return;
  }
  if (
    (coverage !== undefined && coverage.children.size > 0) ||
    (reported !== undefined && reported.children.size > 0)
  ) {
    return comparePartly(walk, from, to, coverage, reported, path);
  }
  // No classifier looks below: a difference anywhere is a change, named at the deepest field that differs.
  if (isPlainObject(from) && isPlainObject(to)) return compareFields(walk, from, to, undefined, reported, path);
  if (!sameJson(from, to, maxObjectDepth - path.length)) walk.note(path, from, to);
}

/** A value some classifier looks below: absent is empty, and each field or item is compared on its own. */
function comparePartly(
  walk: Walk,
  from: unknown,
  to: unknown,
  coverage: CoverageNode | undefined,
  reported: ReportedNode | undefined,
  path: readonly PathSegment[],
): void {
  if ((from === undefined || isPlainObject(from)) && (to === undefined || isPlainObject(to))) {
    return compareFields(walk, from ?? {}, to ?? {}, coverage, reported, path);
  }
  if ((from === undefined || Array.isArray(from)) && (to === undefined || Array.isArray(to))) {
    const [before, after] = [from ?? [], to ?? []];
    for (let index = 0; index < Math.max(before.length, after.length); index++) {
      compare(walk, before[index], after[index], coverage?.children.get(index), reported?.children.get(index), [
        ...path,
        index,
      ]);
    }
    return;
  }
  // Not the shape the classifiers read (the schema's business): whatever differs is a change.
  if (!sameJson(from, to, maxObjectDepth - path.length)) walk.note(path, from, to);
}

function compareFields(
  walk: Walk,
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  coverage: CoverageNode | undefined,
  reported: ReportedNode | undefined,
  path: readonly PathSegment[],
): void {
  for (const key of Object.keys(from)) {
    compare(
      walk,
      from[key],
      Object.hasOwn(to, key) ? to[key] : undefined,
      coverage?.children.get(key),
      reported?.children.get(key),
      [...path, key],
    );
  }
  for (const key of Object.keys(to)) {
    if (!Object.hasOwn(from, key))
      compare(walk, undefined, to[key], coverage?.children.get(key), reported?.children.get(key), [...path, key]);
  }
}

/**
 * Items matched by their keys: an item added or removed is the list classifier's change; a kept item's fields are
 * compared under its item classifiers' coverage, named by its index in the new list as the classifiers name them.
 * Items without their keys, and repeats, are the schema's business, as for the list classifier.
 */
function compareKeyedList(
  walk: Walk,
  from: unknown,
  to: unknown,
  list: KeyedListCoverage,
  reported: ReportedNode | undefined,
  path: readonly PathSegment[],
): void {
  if ((from !== undefined && !Array.isArray(from)) || (to !== undefined && !Array.isArray(to))) {
    if (!sameJson(from, to, maxObjectDepth - path.length)) walk.note(path, from, to);
    return;
  }
  const before = new Map<string, unknown>();
  for (const item of from ?? []) {
    const key = itemKey(item, list.keys);
    if (key !== undefined && !before.has(key)) before.set(key, item);
  }
  const seen = new Set<string>();
  (to ?? []).forEach((item: unknown, index: number) => {
    const key = itemKey(item, list.keys);
    if (key === undefined || seen.has(key)) return;
    seen.add(key);
    if (before.has(key))
      compare(walk, before.get(key), item, list.item, reported?.children.get(index), [...path, index]);
  });
}

/** An item's keys as one string; undefined when one is missing or not a scalar. */
function itemKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isPlainObject(item)) return undefined;
  const values = keys.map((key) => (Object.hasOwn(item, key) ? item[key] : undefined));
  return values.every((value) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    ? JSON.stringify(values)
    : undefined;
}

function presentOrUndefined(value: unknown): unknown {
  return value === null ? undefined : value;
}

/** JSON equality with absent and null alike at every level; values nested deeper than `depth` never compare equal. */
function sameJson(a: unknown, b: unknown, depth: number): boolean {
  const [x, y] = [presentOrUndefined(a), presentOrUndefined(b)];
  if (x === y) return true;
  if (depth <= 0) return false;
  if (Array.isArray(x))
    return Array.isArray(y) && x.length === y.length && x.every((item, index) => sameJson(item, y[index], depth - 1));
  if (!isPlainObject(x) || !isPlainObject(y)) return false;
  const has = (object: Record<string, unknown>, key: string) => Object.hasOwn(object, key) && object[key] !== null;
  for (const key of Object.keys(x))
    if (has(x, key) && !sameJson(x[key], has(y, key) ? y[key] : undefined, depth - 1)) return false;
  for (const key of Object.keys(y)) if (has(y, key) && !has(x, key)) return false;
  return true;
}
