/**
 * How big and how deep a JSON value is, measured without recursion: the values crdgate is sent come from clients,
 * and a recursive walk over a value nested thousands of levels deep overflows the stack (so does JSON.stringify,
 * which every response goes through).
 */

/**
 * Deeper than any real object, shallow enough for every recursive step crdgate and its libraries take over an
 * object (ajv, equality, JSON.stringify of the response), with room to spare on Node's default stack.
 */
export const maxObjectDepth = 256;

/** The number of values (objects, arrays and scalars) in `value`, counting stops once it passes `atMost`. */
export function countValues(value: unknown, atMost: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count <= atMost) {
    const node = pending.pop();
    count++;
    if (node !== null && typeof node === 'object') {
      for (const child of Object.values(node)) pending.push(child);
    }
  }
  return count;
}

/**
 * Whether `value` holds a container nested more than `maxDepth` levels deep. Recursive, but never more than
 * maxDepth + 1 frames deep whatever the input, and allocation-free: it runs on every admission request, where
 * pathDeeperThan's explicit stack cost three times as much (it is for naming the place, once one is known).
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (maxDepth === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestedDeeperThan(value[i], maxDepth - 1)) return true;
    return false;
  }
  for (const key in value) if (nestedDeeperThan((value as Record<string, unknown>)[key], maxDepth - 1)) return true;
  return false;
}

/** The path to the first place where `value` is nested deeper than `maxDepth` levels, or undefined when it is not. */
export function pathDeeperThan(value: unknown, maxDepth: number): Array<string | number> | undefined {
  if (!isContainer(value)) return undefined;
  // One frame per open container, none per scalar: the walk allocates little even for millions of values.
  const frames: Frame[] = [frameOf(value)];
  const path: Array<string | number> = [];
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.next >= frame.size) {
      frames.pop();
      path.pop();
      continue;
    }
    const key = frame.keys ? frame.keys[frame.next]! : frame.next;
    frame.next++;
    const child = (frame.node as Record<string | number, unknown>)[key];
    if (!isContainer(child)) continue;
    if (frames.length >= maxDepth) return [...path, key];
    frames.push(frameOf(child));
    path.push(key);
  }
  return undefined;
}

interface Frame {
  node: object;
  /** An object's keys; undefined for an array, whose keys are its indexes. */
  keys: string[] | undefined;
  size: number;
  next: number;
}

function frameOf(node: object): Frame {
  const keys = Array.isArray(node) ? undefined : Object.keys(node);
  return { node, keys, size: keys ? keys.length : (node as unknown[]).length, next: 0 };
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}
