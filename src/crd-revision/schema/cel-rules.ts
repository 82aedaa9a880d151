import { jsonEqual } from '../../contract/values/json-equal.ts';
import { isPlainObject } from '../../contract/values/kube-object.ts';
import { describeText, describeTextPair } from '../../contract/values/describe-value.ts';
import { changeAt, fieldName, type Where } from '../change.ts';
import type { Change } from '../finding.ts';

type Schema = Record<string, unknown>;
type Rule = Record<string, unknown> & { rule: string };

/** A transition rule reads oldSelf: the API server runs it on updates only, never on a create. */
export function isTransitionRule(rule: Rule): boolean {
  return /\boldSelf\b/.test(rule.rule);
}

const rulesOf = (schema: Schema): Rule[] =>
  Array.isArray(schema['x-kubernetes-validations'])
    ? schema['x-kubernetes-validations'].filter((r): r is Rule => isPlainObject(r) && typeof r.rule === 'string')
    : [];

/** What the rule admits: its expression, and whether oldSelf may be absent. */
const admits = (rule: Rule) => ({ rule: rule.rule, optionalOldSelf: rule.optionalOldSelf === true });

/**
 * The CEL rules (x-kubernetes-validations) of one field, old against new. A rule is the same rule when its
 * expression is; of the rest, the old and new rules left at the same position among them are taken as one rule
 * rewritten, and what is left over as added or removed. A rule whose expression stayed but whose message, reason
 * or fieldPath changed admits the same objects, and says so.
 */
export function compareCelRules(old: Schema, now: Schema, where: Where): Change[] {
  const before = rulesOf(old);
  const after = rulesOf(now);
  const changes: Change[] = [];
  const unmatchedAfter = [...after];
  const unmatchedBefore: Rule[] = [];
  for (const rule of before) {
    const index = unmatchedAfter.findIndex((candidate) => candidate.rule === rule.rule);
    if (index === -1) {
      unmatchedBefore.push(rule);
      continue;
    }
    const [same] = unmatchedAfter.splice(index, 1);
    if (jsonEqual(rule, same)) continue;
    const rewritten = !jsonEqual(admits(rule), admits(same!));
    changes.push(ruleChange(where, rewritten ? 'validationRuleChanged' : 'validationRuleMessageChanged', rule, same!));
  }
  const paired = Math.min(unmatchedBefore.length, unmatchedAfter.length);
  for (let i = 0; i < paired; i += 1)
    changes.push(ruleChange(where, 'validationRuleChanged', unmatchedBefore[i]!, unmatchedAfter[i]!));
  for (const rule of unmatchedBefore.slice(paired))
    changes.push(ruleChange(where, 'validationRuleRemoved', rule, undefined));
  for (const rule of unmatchedAfter.slice(paired))
    changes.push(ruleChange(where, 'validationRuleAdded', undefined, rule));
  return changes;
}

function ruleChange(
  where: Where,
  kind: 'validationRuleChanged' | 'validationRuleMessageChanged' | 'validationRuleRemoved' | 'validationRuleAdded',
  old: Rule | undefined,
  now: Rule | undefined,
): Change {
  const transition =
    (now !== undefined && isTransitionRule(now)) || (now === undefined && old !== undefined && isTransitionRule(old));
  const kindOfRule = transition ? 'transition rule' : 'CEL rule';
  const shown = (rule: Rule) => `"${describeText(rule.rule, 120)}"`;
  const what = {
    validationRuleAdded: () => `${kindOfRule} ${shown(now!)} added${transition ? ' (it judges updates only)' : ''}`,
    validationRuleRemoved: () => `${kindOfRule} ${shown(old!)} removed`,
    validationRuleChanged: () => {
      const [a, b] = describeTextPair(old!.rule, now!.rule, 120);
      return `${kindOfRule} "${a}" → "${b}"`;
    },
    validationRuleMessageChanged: () => `${kindOfRule} ${shown(now!)}: message, reason or fieldPath changed`,
  }[kind]();
  return { ...changeAt(where, kind, `${fieldName(where)}: ${what}`, { old, new: now }), transition };
}
