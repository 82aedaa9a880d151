import { describeChange } from '../../contract/values/describe-value.ts';
import { changeAt, fieldName, type Where } from '../change.ts';
import type { Change } from '../finding.ts';
import type { CrdRevisionRule } from '../rules.ts';

type Schema = Record<string, unknown>;

const upperBounds = ['maximum', 'maxLength', 'maxItems', 'maxProperties'] as const satisfies readonly CrdRevisionRule[];
const lowerBounds = ['minimum', 'minLength', 'minItems', 'minProperties'] as const satisfies readonly CrdRevisionRule[];

const bound = (schema: Schema, keyword: string) =>
  typeof schema[keyword] === 'number' ? (schema[keyword] as number) : undefined;

/**
 * A bound put on or tightened, as crdify judges it: an upper bound added or lowered, a lower bound added or raised.
 * For maximum and minimum, one made exclusive at the same value tightens too. Loosening is no finding.
 */
export function compareBounds(old: Schema, now: Schema, where: Where): Change[] {
  const changes: Change[] = [];
  const tightened = (keyword: CrdRevisionRule, narrower: (a: number, b: number) => boolean, exclusive?: string) => {
    const [a, b] = [bound(old, keyword), bound(now, keyword)];
    if (b === undefined) return;
    const madeExclusive = exclusive !== undefined && a === b && old[exclusive] !== true && now[exclusive] === true;
    if (a !== undefined && !narrower(a, b) && !madeExclusive) return;
    const what =
      a === undefined
        ? `${keyword} ${b} added`
        : madeExclusive
          ? `${keyword} ${b} made exclusive`
          : `${keyword} ${a} → ${b}`;
    changes.push(changeAt(where, keyword, `${fieldName(where)}: ${what}`, { old: a, new: b }));
  };
  for (const keyword of upperBounds)
    tightened(keyword, (a, b) => b < a, keyword === 'maximum' ? 'exclusiveMaximum' : undefined);
  for (const keyword of lowerBounds)
    tightened(keyword, (a, b) => b > a, keyword === 'minimum' ? 'exclusiveMinimum' : undefined);
  const [a, b] = [bound(old, 'multipleOf'), bound(now, 'multipleOf')];
  // A new multipleOf may refuse stored values, unless it divides the old one (every multiple of 10 is one of 5).
  if (b !== undefined && a !== b && !(a !== undefined && b !== 0 && Number.isInteger(a / b))) {
    changes.push(
      changeAt(where, 'multipleOf', `${fieldName(where)}: multipleOf ${describeChange(a, b)}`, {
        old: a,
        new: b,
      }),
    );
  }
  return changes;
}
