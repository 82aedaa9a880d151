import {
  parseFailurePolicy,
  parseLabelSelector,
  parseTimeoutSeconds,
  timeoutSecondsRange,
  webhookDefaults,
  WebhookSettingError,
  type WebhookSettings,
} from '../render/webhook-settings.ts';
import { stringOption, UsageError, type Command, type ParsedValues } from './command.ts';

// The webhook settings a platform team chooses, as flags of `crdgate manifests` and `crdgate dev` alike.

export const webhookOptions: Command['options'] = {
  'failure-policy': { type: 'string' },
  'timeout-seconds': { type: 'string' },
  'namespace-selector': { type: 'string' },
  'object-selector': { type: 'string' },
};

export const webhookOptionsUsage = `  --failure-policy Fail|Ignore
                     what the API server does with a write when crdgate cannot answer, for the webhooks that can
                     refuse or patch (default ${webhookDefaults.failurePolicy}: refuse it; Ignore: let it through unjudged). A webhook
                     that can only warn (a status write's unexpected phase move) is always Ignore
  --timeout-seconds N
                     how long the API server waits for crdgate, ${timeoutSecondsRange.min} to ${timeoutSecondsRange.max} (default ${webhookDefaults.timeoutSeconds})
  --namespace-selector SELECTOR
                     only objects in namespaces with these labels reach crdgate, in kubectl's syntax
                     ('team=maps,env notin (dev)', '!crdgate.io/skip') or as a LabelSelector in JSON
  --object-selector SELECTOR
                     only objects with these labels (old or new) reach crdgate, in the same syntax`;

/** The settings the flags give; none when no flag is given. Bad values are usage errors naming the flag. */
export function webhookSettings(values: ParsedValues): WebhookSettings {
  const parse = <T>(flag: string, read: (text: string) => T): T | undefined => {
    const text = stringOption(values, flag);
    if (text === undefined) return undefined;
    try {
      return read(text);
    } catch (error) {
      if (error instanceof WebhookSettingError) throw new UsageError(`--${flag} ${error.message}`);
      throw error;
    }
  };
  const failurePolicy = parse('failure-policy', parseFailurePolicy);
  const timeoutSeconds = parse('timeout-seconds', parseTimeoutSeconds);
  const namespaceSelector = parse('namespace-selector', parseLabelSelector);
  const objectSelector = parse('object-selector', parseLabelSelector);
  return {
    ...(failurePolicy !== undefined ? { failurePolicy } : {}),
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(namespaceSelector !== undefined ? { namespaceSelector } : {}),
    ...(objectSelector !== undefined ? { objectSelector } : {}),
  };
}

/** The flags as given, to hand on to a `crdgate manifests` run by another command (`crdgate dev`). */
export function webhookFlags(values: ParsedValues): string[] {
  return Object.keys(webhookOptions).flatMap((flag) => {
    const text = stringOption(values, flag);
    return text === undefined ? [] : [`--${flag}`, text];
  });
}
