/** A seeded source of numbers in [0, 1) (mulberry32): the same seed makes the same revisions and objects on every run. */
export interface SeededRandom {
  next(): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    between,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from no items');
      return items[between(0, items.length - 1)]!;
    },
  };
}

/** A seed of its own for each name (FNV-1a), so that adding a CRD or a kind does not change the others' choices. */
export function seedOf(...parts: ReadonlyArray<string | number>): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('/')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
