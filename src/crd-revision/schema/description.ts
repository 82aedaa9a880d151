import { absentValue, describeTextPair } from '../../contract/values/describe-value.ts';
import { changeAt, fieldName, type Where } from '../change.ts';
import type { Change } from '../finding.ts';

type Schema = Record<string, unknown>;

/** A description as read: runs of whitespace (a re-wrapped line, an indent) are one space, and the ends trimmed. */
const text = (schema: Schema) => {
  const words = typeof schema.description === 'string' ? schema.description.replace(/\s+/g, ' ').trim() : '';
  return words === '' ? undefined : words;
};

/**
 * crdify's description check: a field's description written, rewritten or taken away (its words, not how its
 * lines are wrapped or indented). Nothing stored or sent changes, but a description is where an API says what a field means, and a new meaning is a break no schema shows.
 */
export function compareDescription(old: Schema, now: Schema, where: Where): Change[] {
  const [a, b] = [text(old), text(now)];
  if (a === b) return [];
  const verb = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
  const [shownA, shownB] = describeTextPair(a ?? '', b ?? '', 80).map((shown) => `"${shown}"`);
  const shown = `${a === undefined ? absentValue : shownA} → ${b === undefined ? absentValue : shownB}`;
  return [
    changeAt(where, 'description', `${fieldName(where)}: description ${verb} (${shown})`, {
      old: a,
      new: b,
    }),
  ];
}
