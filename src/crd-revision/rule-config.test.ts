import { describe, expect, it } from 'vitest';
import { parseRuleConfig, RuleConfigError } from './rule-config.ts';

describe('parseRuleConfig', () => {
  it('reads each rule set to error, warning or off, from YAML or JSON', () => {
    expect(
      parseRuleConfig(
        'rules:\n  enumValueAdded: error\n  existingFieldRemoval: warning\n  printerColumnAdded: off\n',
        'rules.yaml',
      ),
    ).toEqual({
      rules: { enumValueAdded: 'error', existingFieldRemoval: 'warning', printerColumnAdded: 'off' },
      evidence: 'objects',
    });
    expect(parseRuleConfig('{"rules": {"scope": "warning"}}', 'rules.json').rules).toEqual({ scope: 'warning' });
    // The rules about stored objects are set in the same file.
    expect(
      parseRuleConfig('rules:\n  defaultAddedOnRead: error\n  recreateRefused: off\n', 'rules.yaml').rules,
    ).toEqual({ defaultAddedOnRead: 'error', recreateRefused: 'off' });
  });

  it('reads whether the objects decide where they are known: objects by default, or rules', () => {
    expect(parseRuleConfig('evidence: rules\n', 'rules.yaml')).toEqual({ rules: {}, evidence: 'rules' });
    expect(parseRuleConfig('evidence: objects\nrules: {enum: warning}\n', 'rules.yaml')).toEqual({
      rules: { enum: 'warning' },
      evidence: 'objects',
    });
  });

  it('takes an empty file, or one without rules, as the defaults', () => {
    for (const text of ['', '# nothing yet\n', 'rules: {}\n'])
      expect(parseRuleConfig(text, 'rules.yaml')).toEqual({ rules: {}, evidence: 'objects' });
  });

  it.each([
    ['an unknown rule', 'rules:\n  enumm: off\n', /rules\.enumm: no such rule/],
    ['an unknown setting', 'rules:\n  enum: Warn\n', /rules\.enum: must be error, warning or off, got "Warn"/],
    ['a setting that is no string', 'rules:\n  enum: true\n', /rules\.enum: must be error, warning or off, got true/],
    ['an unknown key', 'validations: []\n', /unknown key "validations"/],
    ['an unknown evidence', 'evidence: live\n', /evidence: must be objects or rules, got "live"/],
    ['rules as a list', 'rules:\n  - enum\n', /rules must be a mapping/],
    ['a document that is no mapping', '- rules\n', /must be a mapping with a "rules" key, got a list/],
    ['text that is not YAML', 'rules: [\n', /not valid YAML or JSON/],
  ])('refuses %s, naming it', (_, text, message) => {
    expect(() => parseRuleConfig(text, 'rules.yaml')).toThrow(RuleConfigError);
    expect(() => parseRuleConfig(text, 'rules.yaml')).toThrow(message);
    expect(() => parseRuleConfig(text, 'rules.yaml')).toThrow(/^rules\.yaml: /);
  });
});
