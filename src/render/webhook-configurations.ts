import type { Contract } from '../contract/define-contract.ts';
import { hubHasScale } from '../contract/scale-subresource.ts';
import { resourceName } from './custom-resource-definition.ts';
import { defaultInstallName, installNames } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';
import { clientConfigFor, webhookPaths, type WebhookEndpoint } from './webhook-endpoint.ts';

// The API server allows 1 to 30 s. crdgate decides in milliseconds; 10 s leaves room for a slow network or a pod
// starting, and still answers a user long before their client gives up.
const timeoutSeconds = 10;

/** The webhook settings both configurations share. */
function commonWebhookSettings(): Record<string, unknown> {
  return {
    // Rules name the hub version only; Equivalent makes the API server convert a request in any other served
    // version to the hub and call crdgate with that, so every rule is written (and applied) once.
    matchPolicy: 'Equivalent',
    // A webhook that cannot be reached must not wave objects through unchecked.
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds,
  };
}

export function validatingWebhookName(contract: Contract): string {
  return `validate.${resourceName(contract.identity)}`;
}

/** The validating webhook of /scale, apart from the main one so that the policy floor's Ignore leaves it failing closed. */
export function scaleWebhookName(contract: Contract): string {
  return `scale.${validatingWebhookName(contract)}`;
}

export function mutatingWebhookName(contract: Contract): string {
  return `mutate.${resourceName(contract.identity)}`;
}

/**
 * One validating webhook per contract: writes and deletions of the resource, and writes of its status, so an
 * operator cannot store a status the schema or the invariants forbid. A contract whose hub has a scale subresource
 * gets a second one for UPDATE of /scale (a PATCH arrives as one), which `kubectl scale` and autoscalers write: crdgate
 * judges it as the same change of the replicas field sent to the object, which it reads from the API server. It is a
 * webhook of its own because no policy can judge a Scale (it carries no phase, no annotations): where the policy
 * floor sets the main webhook to Ignore, this one stays Fail, so an outage never lets a scale through unjudged.
 */
export function renderValidatingWebhookConfiguration(contracts: readonly Contract[], endpoint: WebhookEndpoint, installName = defaultInstallName): Manifest {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: installNames(installName).webhookConfiguration },
    webhooks: contracts.flatMap((contract) => [
      {
        name: validatingWebhookName(contract),
        clientConfig: clientConfigFor(endpoint, webhookPaths.validate),
        rules: [
          rule(contract, ['CREATE', 'UPDATE', 'DELETE'], contract.identity.plural),
          ...(hubHasStatus(contract) ? [rule(contract, ['UPDATE'], `${contract.identity.plural}/status`)] : []),
        ],
        ...commonWebhookSettings(),
      },
      ...(hubHasScale(contract)
        ? [
            {
              name: scaleWebhookName(contract),
              clientConfig: clientConfigFor(endpoint, webhookPaths.validate),
              rules: [rule(contract, ['UPDATE'], `${contract.identity.plural}/scale`)],
              ...commonWebhookSettings(),
            },
          ]
        : []),
    ]),
  };
}

/** One mutating webhook per contract: defaults are filled on writes of the resource itself, never on its status. */
export function renderMutatingWebhookConfiguration(contracts: readonly Contract[], endpoint: WebhookEndpoint, installName = defaultInstallName): Manifest {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: installNames(installName).webhookConfiguration },
    webhooks: contracts.map((contract) => ({
      name: mutatingWebhookName(contract),
      clientConfig: clientConfigFor(endpoint, webhookPaths.mutate),
      rules: [rule(contract, ['CREATE', 'UPDATE'], contract.identity.plural)],
      ...commonWebhookSettings(),
      // Another mutating webhook may add what needs defaults (a cache, say); crdgate's patch is idempotent, so
      // being called again costs nothing.
      reinvocationPolicy: 'IfNeeded',
    })),
  };
}

function rule(contract: Contract, operations: string[], resource: string): Record<string, unknown> {
  return {
    apiGroups: [contract.identity.group],
    apiVersions: [contract.hub],
    operations,
    resources: [resource],
    scope: contract.identity.scope,
  };
}

function hubHasStatus(contract: Contract): boolean {
  return contract.versions.find((version) => version.name === contract.hub)?.subresources?.status !== undefined;
}
