import { absentValue } from '../../values/describe-value.ts';
import { fieldError, type FieldError } from '../../values/field-error.ts';
import type { JudgedChange, JudgedUnclassifiedChanges } from './judge-changes.ts';
import type { Change, changePlaceholders, Fsa } from '../machine.ts';
import type { StateReading } from '../phase.ts';

/** One change in words, from its kind's description: `minor upgrade 16.4 -> 16.6`. */
export function describeChange<S extends string, C extends string>(machine: Fsa<S, C>, change: Change<C>): string {
  if (change.undecidable !== undefined)
    return `${changingValues(change)}, which cannot be judged (${change.undecidable})`;
  const template = machine.changeKinds[change.kind]?.description ?? change.kind;
  return template.replace(
    /\{(from|to|item)\}/g,
    (_, name: (typeof changePlaceholders)[number]) => change[name] ?? absentValue,
  );
}

/** A change by its values alone, for one no kind describes: `changing 4MB to 8MB`, `changing (none) to 3`. */
export function changingValues({ from, to }: { from?: string; to?: string }): string {
  return `changing ${from ?? absentValue} to ${to ?? absentValue}`;
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
 * What the refusal of a change of an override-only kind says after the change's description: that it needs a
 * person's reason, why, and the annotation that gives one. The policy floor's CEL says the same words.
 */
export function overrideOnlyWords(overrideAnnotation: string, reason: string): string {
  return ` needs a person's reason in every state: ${reason}; give one in the annotation ${overrideAnnotation}, in the write that makes the change`;
}

/**
 * The refusal of a change that does not pass, naming the field, the change with its values, the state and where
 * it would be allowed, e.g. `minor upgrade 16.4 -> 16.6 is not allowed while the database is Upgrading
 * (allowed in: Ready)` at `spec.postgres.version`. A refusal the override could have lifted says so when the object
 * carries a stale one.
 */
export function denialFor<S extends string, C extends string>(
  machine: Fsa<S, C>,
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
      return fieldError(
        change.field,
        'FieldValueForbidden',
        `${describeChange(machine, change)} is unsupported: ${ruling.reason}`,
      );
    case 'override-only':
      return fieldError(
        change.field,
        'FieldValueForbidden',
        `${describeChange(machine, change)}${overrideOnlyWords(machine.overrideAnnotation, ruling.reason)}${staleNote}`,
      );
    case 'not-allowed': {
      const where = ruling.allowedIn.length > 0 ? ruling.allowedIn.join(', ') : 'none';
      const message = `${describeChange(machine, change)} is not allowed while the ${machine.subject} is ${stateLabel(state)} (allowed in: ${where})${staleNote}`;
      return fieldError(change.field, 'FieldValueForbidden', message);
    }
    case 'undecidable': {
      const message =
        `${changingValues(change)} cannot be judged: ${ruling.reason}; it is refused while the ${machine.subject} is ` +
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

/**
 * The refusals of the changes no classifier names, one per change named (field, both values, the state, and that no
 * change kind names the field), and one at `spec` for those past the named ones; none when they are allowed. Where
 * the override could lift them, a stale one on the object is pointed out, as for a classified change.
 */
export function unclassifiedDenials<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: StateReading<S>,
  { ruling, changes, more }: JudgedUnclassifiedChanges,
  staleOverride: boolean,
): FieldError[] {
  if (ruling.outcome !== 'not-allowed' && ruling.outcome !== 'refused') return [];
  const where = `while the ${machine.subject} is ${stateLabel(state)}`;
  const [verdict, rule] =
    ruling.outcome === 'refused'
      ? ['refused', 'such changes are refused there, override or not']
      : ['not allowed', `such changes need ${machine.overrideAnnotation} with a reason`];
  const staleNote =
    ruling.outcome === 'not-allowed' && staleOverride ? staleOverrideNote(machine.overrideAnnotation) : '';
  const denials = changes.map((change) =>
    fieldError(
      change.field,
      'FieldValueForbidden',
      `${changingValues(change)} is ${verdict} ${where}: no change kind names this field (${rule})${staleNote}`,
    ),
  );
  if (more > 0) {
    const fields = more === 1 ? 'field' : 'fields';
    denials.push(
      fieldError(
        'spec',
        'FieldValueForbidden',
        `${more} more ${fields} that no change kind names changed, which is ${verdict} ${where} (${rule})${staleNote}`,
      ),
    );
  }
  return denials;
}
