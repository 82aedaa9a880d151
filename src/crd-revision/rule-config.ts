import { parse } from 'yaml';
import { isPlainObject } from '../contract/values/kube-object.ts';
import { storedObjectRules, type StoredObjectRule } from './stored-object-rules.ts';
import { crdRevisionRules, isCrdRevisionRule, type CrdRevisionRule, type Severity } from './rules.ts';

/** What a config file sets a rule to: `off` drops its findings. */
export type RuleSetting = Severity | 'off';
/** Settings of the revision's own rules and of the rules about its stored objects (one file sets both). */
export type RuleSettings = Partial<Record<CrdRevisionRule | StoredObjectRule, RuleSetting>>;

/**
 * Whether the objects decide a revision's findings where they are known (`objects`, the default), or the rules
 * alone, as without objects (`rules`): the `evidence` key of a `--crd-rules` file (objects/evidence.ts).
 */
export type EvidencePolicy = 'objects' | 'rules';

export const evidencePolicies: readonly EvidencePolicy[] = ['objects', 'rules'];

/** What a `--crd-rules` file says: the rules' settings, and whether the objects decide where they are known. */
export interface RuleConfig {
  rules: RuleSettings;
  evidence: EvidencePolicy;
}

/** A config file that is not what it must be: the message names the key or value at fault. */
export class RuleConfigError extends Error {
  override name = 'RuleConfigError';
}

const settings: readonly RuleSetting[] = ['error', 'warning', 'off'];

/**
 * Reads a rule config (YAML, or JSON, which is YAML):
 *
 *     evidence: objects      # or rules: see evidence.ts
 *     rules:
 *       enumValueAdded: error
 *       printerColumnAdded: off
 *
 * A rule left out keeps its default severity; without `evidence`, the objects decide where they are known. An
 * unknown key, an unknown rule, a setting other than error, warning or off, or an evidence other than objects or
 * rules is refused, so that a typo does not silently leave anything at its default.
 */
export function parseRuleConfig(text: string, source: string): RuleConfig {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new RuleConfigError(`${source}: not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (document === null || document === undefined) return { rules: {}, evidence: 'objects' };
  if (!isPlainObject(document))
    throw new RuleConfigError(`${source}: must be a mapping with a "rules" key, got ${kindOf(document)}`);
  const unknownKey = Object.keys(document).find((key) => key !== 'rules' && key !== 'evidence');
  if (unknownKey !== undefined)
    throw new RuleConfigError(`${source}: unknown key "${unknownKey}" (the keys are "rules" and "evidence")`);
  const evidence = document.evidence ?? 'objects';
  if (typeof evidence !== 'string' || !(evidencePolicies as readonly string[]).includes(evidence))
    throw new RuleConfigError(
      `${source}: evidence: must be objects or rules, got ${JSON.stringify(evidence) ?? kindOf(evidence)}`,
    );
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
  return { rules: result, evidence: evidence as EvidencePolicy };
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
