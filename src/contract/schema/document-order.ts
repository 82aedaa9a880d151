import { childOf, type PathSegment } from '../values/field-path.ts';

/** Where a path points in a document: per step, an array index or the place of a key among its object's keys. */
export type DocumentPosition = readonly number[];

/**
 * Positions of paths into one value, for putting errors in document order: object keys by their order in the
 * object, indexes numerically, a parent before its children. Keys absent from the data (a missing required
 * field) come after the present ones; paths that tie keep their order under a stable sort.
 * Each object's keys are listed once, however many errors point into it.
 */
export function createDocumentPositions(data: unknown): (segments: readonly PathSegment[]) => DocumentPosition {
  const keyPlaces = new WeakMap<object, Map<string, number>>();
  const placeOf = (node: unknown, segment: PathSegment): number => {
    if (typeof segment === 'number') return segment;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return Number.POSITIVE_INFINITY;
    let places = keyPlaces.get(node);
    if (!places) {
      places = new Map(Object.keys(node).map((key, index) => [key, index]));
      keyPlaces.set(node, places);
    }
    return places.get(segment) ?? Number.POSITIVE_INFINITY;
  };
  return (segments) => {
    const position: number[] = [];
    let node = data;
    for (const segment of segments) {
      position.push(placeOf(node, segment));
      node = childOf(node, segment);
    }
    return position;
  };
}

export function compareDocumentPositions(a: DocumentPosition, b: DocumentPosition): number {
  const shared = Math.min(a.length, b.length);
  for (let depth = 0; depth < shared; depth++) {
    const left = a[depth]!;
    const right = b[depth]!;
    if (left !== right) return left < right ? -1 : 1;
  }
  return a.length - b.length;
}
