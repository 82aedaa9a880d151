import { fieldError, type FieldError } from '../../field-error.ts';
import type { JudgedChange } from './judge-changes.ts';
import type { Change, TransitionMachine } from '../machine.ts';
import type { StateReading } from '../phase.ts';

export const changePlaceholders = ['from', 'to', 'item'] as const;

/** One change in words, from its kind's description: `minor upgrade 16.4 -> 16.6`. */
export function describeChange<S extends string, C extends string>(machine: TransitionMachine<S, C>, change: Change<C>): string {
  if (change.undecidable !== undefined) return `changing ${change.from ?? '(none)'} to ${change.to ?? '(none)'}, which cannot be judged (${change.undecidable})`;
  const template = machine.changeKinds[change.kind]?.description ?? change.kind;
  return template.replace(/\{(from|to|item)\}/g, (_, name: (typeof changePlaceholders)[number]) => change[name] ?? '(none)');
}

/** How a message completes "while the database is ...". */
export function stateLabel<S extends string>(state: StateReading<S>): string {
  return state.recognised ? state.state : `in the unrecognised phase ${state.phase}`;
}

/**
 * What a refusal that an override could lift adds when the object carries a stale one: that it no longer counts,
 * and how to give one. The policy floor's CEL says the same words.
 */
export function staleOverrideNote(overrideAnnotation: string): string {
  return `; the ${overrideAnnotation} annotation on the object authorised only the write that set it: to override this change, give the annotation a new reason in the write that makes it`;
}

/**
 * The refusal of a change that does not pass, naming the field, the change with its values, the state and where
 * it would be allowed, e.g. `minor upgrade 16.4 -> 16.6 is not allowed while the database is Upgrading
 * (allowed in: Ready)` at `spec.postgres.version`. A refusal the override could have lifted says so when the object
 * carries a stale one.
 */
export function denialFor<S extends string, C extends string>(
  machine: TransitionMachine<S, C>,
  state: StateReading<S>,
  { change, ruling }: JudgedChange<S, C>,
  staleOverride: boolean,
): FieldError | undefined {
  const staleNote = staleOverride ? staleOverrideNote(machine.overrideAnnotation) : '';
  switch (ruling.outcome) {
    case 'allowed':
    case 'overridden':
      return undefined;
    case 'unsupported':
      return fieldError(change.field, 'FieldValueForbidden', `${describeChange(machine, change)} is unsupported: ${ruling.reason}`);
    case 'not-allowed': {
      const where = ruling.allowedIn.length > 0 ? ruling.allowedIn.join(', ') : 'none';
      const message = `${describeChange(machine, change)} is not allowed while the ${machine.subject} is ${stateLabel(state)} (allowed in: ${where})${staleNote}`;
      return fieldError(change.field, 'FieldValueForbidden', message);
    }
    case 'undecidable': {
      const message =
        `changing ${change.from ?? '(none)'} to ${change.to ?? '(none)'} cannot be judged: ${ruling.reason}; it is refused while the ${machine.subject} is ` +
        `${stateLabel(state)} unless ${machine.overrideAnnotation} gives a reason${staleNote}`;
      return fieldError(change.field, 'FieldValueForbidden', message);
    }
    case 'exclusive-conflict': {
      const others = ruling.conflictsWith.map((other) => `${other.kind} (${other.field})`).join(', ');
      const message = `${describeChange(machine, change)} cannot be combined with ${others} in one update; make these changes one at a time`;
      return fieldError(change.field, 'FieldValueForbidden', message);
    }
  }
}
