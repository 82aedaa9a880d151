import { parseFieldPath, type PathSegment } from '../values/field-path.ts';
import type { ClassifierTarget } from './classifier-form.ts';
import type { Classifier } from './machine.ts';

// Which spec fields a machine's classifiers cover, from the targets they declare: a field under a field
// classifier's path is covered whatever its value; a keyed list's items are matched by their keys, added and removed
// items are the list classifier's, and a kept item's fields are covered only under its item classifiers' targets.
// The webhook reads it to find the changes no classifier names, the policy compiler to compile the same.

export interface CoverageNode {
  /** Every field at and below this one is some classifier's. */
  covered: boolean;
  /** The fields below that some classifier covers, by object key or list index; empty when none is. */
  children: Map<PathSegment, CoverageNode>;
  /** A keyed list: its items are matched by these keys, and `item` says what their item classifiers cover. */
  keyedList?: KeyedListCoverage;
}

export interface KeyedListCoverage {
  keys: readonly string[];
  item: CoverageNode;
  /** Some item classifier declares no target: it covers only the fields of the changes it reports. */
  untargetedItems: boolean;
}

export interface SpecCoverage {
  /** The spec itself. */
  root: CoverageNode;
  /** Some classifier declares no target: it covers only the fields of the changes it reports, known per update. */
  untargeted: boolean;
}

export function emptyCoverage(): CoverageNode {
  return { covered: false, children: new Map() };
}

/** What a machine's classifiers cover of the spec, from their targets. */
export function specCoverage(classifiers: readonly Classifier<string>[]): SpecCoverage {
  const root = emptyCoverage();
  let untargeted = false;
  for (const { target } of classifiers) {
    if (target === undefined) untargeted = true;
    else addTarget(root, target);
  }
  return { root, untargeted };
}

function addTarget(node: CoverageNode, target: ClassifierTarget): void {
  const at = nodeAt(node, parseFieldPath(target.path));
  if (target.classify === 'field') {
    at.covered = true;
    return;
  }
  const list = (at.keyedList ??= { keys: target.keys, item: emptyCoverage(), untargetedItems: false });
  // Two items with the same keys have equal keys: a kept item's keys never change.
  for (const key of target.keys) nodeAt(list.item, [key]).covered = true;
  for (const item of target.items) {
    if (item === undefined) list.untargetedItems = true;
    else addTarget(list.item, item);
  }
}

function nodeAt(node: CoverageNode, segments: readonly PathSegment[]): CoverageNode {
  return segments.reduce<CoverageNode>((parent, segment) => {
    let child = parent.children.get(segment);
    if (child === undefined) parent.children.set(segment, (child = emptyCoverage()));
    return child;
  }, node);
}
