import type { ScaffoldNames } from './scaffold-names.ts';

// The spec a scaffolded contract starts from. crdgate cannot know what a kind's spec holds, so the scaffold gives it
// three placeholder fields of the shapes most specs have (a count, a quantity, a choice), each marked TODO, and
// every part of the contract (schema, default, invariant, machine, conversion) works on them, so that the user
// sees each part working before replacing the fields with the kind's own.

/** The hub's quantity field; every other version calls it {@link spokeSizeField}, the one rename conversion shows. */
export const sizeField = 'size';
export const spokeSizeField = 'capacity';

/** The values of the `mode` field; the first is its default. */
export const modes = ['Replicated', 'Standalone'] as const;

/** The invariant's message: a Standalone object keeps one replica. */
export function invariantMessage(n: ScaffoldNames): string {
  return `a Standalone ${n.singular} runs exactly one replica`;
}

/** Why the FSA refuses a change of mode once the object is provisioned. */
export function modeChangeReason(n: ScaffoldNames): string {
  return `a ${n.singular} keeps the mode it was created with`;
}
