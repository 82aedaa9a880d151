import { parse } from 'yaml';
import { isPlainObject } from '../contract/values/kube-object.ts';
import { storedObjectRules, type StoredObjectRule } from './stored-object-rules.ts';
import { crdRevisionRules, isCrdRevisionRule, type CrdRevisionRule, type Severity } from './rules.ts';

/** What a config file sets a rule to: `off` drops its findings. */
export type RuleSetting = Severity | 'off';
/** Settings of the revision's own rules and of the rules about its stored objects (one file sets both). */
export type RuleSettings = Partial<Record<CrdRevisionRule | StoredObjectRule, RuleSetting>>;

/** A config file that is not what it must be: the message names the key or value at fault. */
export class RuleConfigError extends Error {
  override name = 'RuleConfigError';
}

const settings: readonly RuleSetting[] = ['error', 'warning', 'off'];

/**
 * Reads a rule config (YAML, or JSON, which is YAML):
 *
 *     rules:
 *       enumValueAdded: error
 *       printerColumnAdded: off
 *
 * A rule left out keeps its default severity. An unknown key, an unknown rule or a setting other than error,
 * warning or off is refused, so that a typo does not silently leave a rule at its default.
 */
export function parseRuleConfig(text: string, source: string): RuleSettings {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new RuleConfigError(`${source}: not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || document === undefined) return {};
  if (!isPlainObject(document))
    throw new RuleConfigError(`${source}: must be a mapping with a "rules" key, got ${kindOf(document)}`);
  const unknownKey = Object.keys(document).find((key) => key !== 'rules');
  if (unknownKey !== undefined)
    throw new RuleConfigError(`${source}: unknown key "${unknownKey}" (the only key is "rules")`);
  const rules = document.rules ?? {};
  if (!isPlainObject(rules))
    throw new RuleConfigError(
      `${source}: rules must be a mapping of rule to error, warning or off, got ${kindOf(rules)}`,
    );
  const result: RuleSettings = {};
  for (const [rule, setting] of Object.entries(rules)) {
    if (!isCrdRevisionRule(rule) && !Object.hasOwn(storedObjectRules, rule)) {
      const known = [...Object.keys(crdRevisionRules), ...Object.keys(storedObjectRules)].join(', ');
      throw new RuleConfigError(`${source}: rules.${rule}: no such rule (the rules are: ${known})`);
    }
    if (typeof setting !== 'string' || !(settings as readonly string[]).includes(setting)) {
      throw new RuleConfigError(
        `${source}: rules.${rule}: must be error, warning or off, got ${JSON.stringify(setting) ?? kindOf(setting)}`,
      );
    }
    result[rule as CrdRevisionRule | StoredObjectRule] = setting as RuleSetting;
  }
  return result;
}

function kindOf(value: unknown): string {
  return Array.isArray(value)
    ? 'a list'
    : value === null
      ? 'null'
      : typeof value === 'object'
        ? 'a mapping'
        : `${typeof value} ${JSON.stringify(value)}`;
}
