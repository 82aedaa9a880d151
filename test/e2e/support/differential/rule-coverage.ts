import type { JSONSchemaProps, ValidationRule } from '../../../../src/contract/schema/json-schema-props.ts';
import type { Judgement } from './api-server-judge.ts';

/** One `x-kubernetes-validations` rule of a schema, and where it sits. */
export interface SchemaRule {
  /** Property names from the root, `items` and `additionalProperties` for the value of a list or map. */
  at: string;
  rule: ValidationRule;
}

export function rulesOf(schema: JSONSchemaProps, at = ''): SchemaRule[] {
  const own = (schema['x-kubernetes-validations'] ?? []).map((rule) => ({ at: at || '(root)', rule }));
  const children: Array<[string, JSONSchemaProps | undefined]> = [
    ...Object.entries(schema.properties ?? {}).map(([name, child]): [string, JSONSchemaProps] => [
      `${at}.${name}`,
      child,
    ]),
    [`${at}[items]`, schema.items],
    [
      `${at}[additionalProperties]`,
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined,
    ],
  ];
  return [...own, ...children.flatMap(([path, child]) => (child ? rulesOf(child, path) : []))];
}

/**
 * How many cases kube-apiserver refused for each rule: a cause carrying the rule's message. A rule with only a
 * messageExpression is matched by the expression's constant text before its first `+`.
 */
export function ruleCoverage(rules: readonly SchemaRule[], judgements: readonly Judgement[]): Map<SchemaRule, number> {
  const coverage = new Map<SchemaRule, number>();
  for (const rule of rules) {
    const text = rule.rule.message ?? /^'([^']+)'/.exec(rule.rule.messageExpression ?? '')?.[1];
    const refusedFor = (judgement: Judgement) =>
      !judgement.allowed && text !== undefined && judgement.messages.some((message) => message.includes(text));
    coverage.set(rule, judgements.filter(refusedFor).length);
  }
  return coverage;
}
