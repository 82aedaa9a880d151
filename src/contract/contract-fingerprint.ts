import { createHash } from 'node:crypto';

/** A number per function met, for as long as it lives: the identity a fingerprint names it by. */
const functionIds = new WeakMap<object, number>();
let nextFunctionId = 0;

/**
 * What a contract is, as one string: the SHA-256 of its data as JSON, each function by its identity, and each
 * object met again (a guard's copy of its owner's CRD holds the very schemas of the contract's versions) by the
 * order in which it was first met, not its JSON again. Two equal fingerprints are the same data and the same
 * functions in the same places, shared where they were shared, so that what defineContract found of a contract
 * holds of it for as long as its fingerprint stays: a change to a shared object shows where it was first met, and
 * an object put in place of a shared one (or of anything) changes the text there. Undefined for a value JSON cannot
 * carry (a bigint, a symbol): then nothing is taken as known.
 */
export function contractFingerprint(value: unknown): string | undefined {
  const met = new Map<object, number>();
  try {
    const text = JSON.stringify(value, (_key, part: unknown) => {
      if (typeof part === 'object' && part !== null) {
        const first = met.get(part);
        if (first !== undefined) return `\u0000again ${first}`;
        met.set(part, met.size);
        return part;
      }
      if (typeof part === 'symbol') throw new TypeError('a symbol');
      if (typeof part !== 'function') return part;
      let id = functionIds.get(part);
      if (id === undefined) {
        id = nextFunctionId++;
        functionIds.set(part, id);
      }
      return `\u0000function ${id}`;
    });
    // Kept for as long as the contract lives: the digest of its text, not the text, which is as large as its schemas.
    return text === undefined ? undefined : createHash('sha256').update(text).digest('base64');
  } catch {
    return undefined;
  }
}
