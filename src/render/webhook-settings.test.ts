import { describe, expect, it } from 'vitest';
import {
  parseFailurePolicy,
  parseLabelSelector,
  parseTimeoutSeconds,
  WebhookSettingError,
} from './webhook-settings.ts';

describe('parseLabelSelector', () => {
  it("reads kubectl's selector syntax into a LabelSelector", () => {
    expect(
      parseLabelSelector(
        'team=maps, env in (prod,staging),tier notin (dev), !legacy,example.com/judged,app!=old,zone==a',
      ),
    ).toEqual({
      matchLabels: { team: 'maps', zone: 'a' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'staging'] },
        { key: 'tier', operator: 'NotIn', values: ['dev'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'example.com/judged', operator: 'Exists' },
        { key: 'app', operator: 'NotIn', values: ['old'] },
      ],
    });
    expect(parseLabelSelector('empty=')).toEqual({ matchLabels: { empty: '' } });
  });

  it('reads a LabelSelector in JSON', () => {
    const selector = {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }],
    };
    expect(parseLabelSelector(JSON.stringify(selector))).toEqual(selector);
    expect(parseLabelSelector('{}')).toEqual({});
  });

  it.each([
    ['', 'is empty'],
    ['team maps', 'cannot read "team maps"'],
    ['env in ()', 'env in needs at least one value'],
    ['bad key=x', 'cannot read'],
    ['UPPER/x=y', 'key "UPPER/x" must be a qualified name'],
    ['team=not a value', 'cannot read'],
    ['team=-dash', 'the value "-dash" of team must be a label value'],
    ['{"matchLabels":{"a":1}}', 'matchLabels must be an object of label keys to string values'],
    ['{"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]}', 'a with operator Exists takes no values'],
    ['{"match":{}}', 'unknown fields match'],
    ['{', 'is not JSON'],
  ])('refuses %j, saying what is wrong', (text, problem) => {
    expect(() => parseLabelSelector(text)).toThrow(WebhookSettingError);
    expect(() => parseLabelSelector(text)).toThrow(problem);
  });
});

describe('parseFailurePolicy and parseTimeoutSeconds', () => {
  it("take the API server's values and range only", () => {
    expect(parseFailurePolicy('Ignore')).toBe('Ignore');
    expect(() => parseFailurePolicy('ignore')).toThrow('must be Fail or Ignore, got "ignore"');
    expect(parseTimeoutSeconds('30')).toBe(30);
    for (const bad of ['0', '31', '2.5', '-1', 'ten', ''])
      expect(() => parseTimeoutSeconds(bad)).toThrow('from 1 to 30');
  });
});
