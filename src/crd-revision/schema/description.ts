import { absentValue, describeText } from '../../contract/values/describe-value.ts';
import { changeAt, fieldName, type Where } from '../change.ts';
import type { Change } from '../finding.ts';

type Schema = Record<string, unknown>;

const text = (schema: Schema) =>
  typeof schema.description === 'string' && schema.description !== '' ? schema.description : undefined;

/**
 * crdify's description check: a field's description written, rewritten or taken away. Nothing stored or sent
 * changes, but a description is where an API says what a field means, and a new meaning is a break no schema shows.
 */
export function compareDescription(old: Schema, now: Schema, where: Where): Change[] {
  const [a, b] = [text(old), text(now)];
  if (a === b) return [];
  const verb = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
  const shown = (value: string | undefined) => (value === undefined ? absentValue : `"${describeText(value, 80)}"`);
  return [
    changeAt(where, 'description', `${fieldName(where)}: description ${verb} (${shown(a)} → ${shown(b)})`, {
      old: a,
      new: b,
    }),
  ];
}
