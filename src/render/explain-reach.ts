import type { Contract } from '../contract/contract-definition.ts';
import { undeclaredReads } from './undeclared-reads.ts';
import { contractWebhooks, type WebhookDecides } from './webhook-reach.ts';
import { failureHandling, type LabelSelector, type WebhookSettings } from './webhook-settings.ts';

// `crdgate manifests --explain`: per webhook, which requests the API server sends crdgate and why; everything else
// of the kind never reaches it, and so never waits on it.

const decidesWords: Record<WebhookDecides, string> = {
  refusals: 'crdgate can refuse these',
  warnings: 'crdgate can only warn about these, never refuse one',
  patches: 'crdgate fills defaults into these',
};

export function explainReach(contracts: readonly Contract[], settings: WebhookSettings = {}): string {
  const sections = contracts.map((contract) => {
    const webhooks = contractWebhooks(contract);
    const lines = [`${contract.identity.kind}.${contract.identity.group}: what reaches crdgate`];
    for (const webhook of webhooks) {
      const { failurePolicy, timeoutSeconds } = failureHandling(webhook.decides, settings);
      lines.push(
        `  ${webhook.configuration} webhook ${webhook.name} (failurePolicy ${failurePolicy}, timeoutSeconds ${timeoutSeconds}: ${decidesWords[webhook.decides]})`,
      );
      lines.push(...webhook.explanation.map((line) => `    ${line}`));
    }
    if (!webhooks.some((webhook) => webhook.configuration === 'mutating'))
      lines.push('  no mutating webhook: the contract has no defaults');
    const reads = undeclaredReads(contract);
    if (reads !== undefined) lines.push(`  warning: ${reads}`);
    return lines.join('\n');
  });
  const scope = [
    ...(settings.namespaceSelector !== undefined
      ? [`only in namespaces selected by ${selectorText(settings.namespaceSelector)}`]
      : []),
    ...(settings.objectSelector !== undefined
      ? [`only objects selected by ${selectorText(settings.objectSelector)}`]
      : []),
  ];
  const footer = [
    ...(scope.length > 0 ? [`Every webhook is sent ${scope.join(', ')}.`] : []),
    'Anything else of these kinds is never sent to crdgate, so a crdgate outage does not block it.',
  ];
  return `${[...sections, footer.join('\n')].join('\n\n')}\n`;
}

function selectorText(selector: LabelSelector): string {
  const parts = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`),
    ...(selector.matchExpressions ?? []).map(({ key, operator, values }) =>
      operator === 'Exists'
        ? key
        : operator === 'DoesNotExist'
          ? `!${key}`
          : `${key} ${operator === 'In' ? 'in' : 'notin'} (${(values ?? []).join(',')})`,
    ),
  ];
  return parts.length === 0 ? 'the empty selector (everything)' : parts.join(',');
}
