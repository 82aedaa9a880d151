import type { Contract } from '../contract/contract-definition.ts';
import { defaultInstallName, installNames } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';
import { clientConfigFor, type WebhookEndpoint } from './webhook-endpoint.ts';
import { contractWebhooks, type WebhookReach } from './webhook-reach.ts';
import { failureHandling, type WebhookSettings } from './webhook-settings.ts';

/**
 * The validating webhooks of every contract: each with the operations, subresources and matchConditions of what its
 * decisions can say (webhook-reach.ts). The main one judges creates, updates that change what the contract reads,
 * and deletes its rules can refuse; one for /status where crdgate judges status writes; and one for UPDATE of
 * /scale where the hub has that subresource (a PATCH arrives as one), which `kubectl scale` and autoscalers write:
 * crdgate judges it as the same change of the replicas field sent to the object, which it reads from the API
 * server. The scale webhook is one of its own because no policy can judge a Scale (it carries no phase, no
 * annotations): where the policy floor sets the main webhook to Ignore, this one stays Fail, so an outage never
 * lets a scale through unjudged.
 */
export function renderValidatingWebhookConfiguration(
  contracts: readonly Contract[],
  endpoint: WebhookEndpoint,
  installName = defaultInstallName,
  settings: WebhookSettings = {},
): Manifest {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: installNames(installName).webhookConfiguration },
    webhooks: contracts.flatMap((contract) =>
      contractWebhooks(contract)
        .filter((webhook) => webhook.configuration === 'validating')
        .map((webhook) => renderWebhook(contract, webhook, endpoint, settings)),
    ),
  };
}

/**
 * The mutating webhook of every contract with defaults, filled on writes of the resource itself (never its status)
 * whose result the defaults can change, in one configuration. A contract without defaults has none; with no such
 * contract there is no configuration at all (an empty one would only be one more object to install, patch with a
 * CA and explain), so this is a list: one configuration or none.
 */
export function renderMutatingWebhookConfigurations(
  contracts: readonly Contract[],
  endpoint: WebhookEndpoint,
  installName = defaultInstallName,
  settings: WebhookSettings = {},
): Manifest[] {
  const webhooks = contracts.flatMap((contract) =>
    contractWebhooks(contract)
      .filter((webhook) => webhook.configuration === 'mutating')
      .map((webhook) => ({
        ...renderWebhook(contract, webhook, endpoint, settings),
        // Another mutating webhook may add what needs defaults (a cache, say); crdgate's patch is idempotent, so
        // being called again costs nothing.
        reinvocationPolicy: 'IfNeeded',
      })),
  );
  if (webhooks.length === 0) return [];
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: installNames(installName).webhookConfiguration },
      webhooks,
    },
  ];
}

/** Whether some contract has a mutating webhook: whether renderMutatingWebhookConfigurations renders a configuration. */
export function hasMutatingWebhooks(contracts: readonly Contract[]): boolean {
  return contracts.some((contract) =>
    contractWebhooks(contract).some((webhook) => webhook.configuration === 'mutating'),
  );
}

function renderWebhook(
  contract: Contract,
  webhook: WebhookReach,
  endpoint: WebhookEndpoint,
  settings: WebhookSettings,
): Record<string, unknown> {
  const handling = failureHandling(webhook.decides, settings);
  return {
    name: webhook.name,
    clientConfig: clientConfigFor(endpoint, webhook.path),
    rules: webhook.rules.map((rule) => ({
      apiGroups: [contract.identity.group],
      apiVersions: [contract.hub],
      operations: [...rule.operations],
      resources: [rule.resource],
      scope: contract.identity.scope,
    })),
    ...(settings.namespaceSelector !== undefined ? { namespaceSelector: settings.namespaceSelector } : {}),
    ...(settings.objectSelector !== undefined ? { objectSelector: settings.objectSelector } : {}),
    ...(webhook.matchConditions.length > 0
      ? { matchConditions: webhook.matchConditions.map((condition) => ({ ...condition })) }
      : {}),
    // Rules name the hub version only; Equivalent makes the API server convert a request in any other served
    // version to the hub and call crdgate with that, so every rule is written (and applied) once.
    matchPolicy: 'Equivalent',
    // A webhook that cannot be reached must not wave objects through unchecked (unless the team chose Ignore).
    failurePolicy: handling.failurePolicy,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: handling.timeoutSeconds,
  };
}
