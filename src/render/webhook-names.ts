import type { Contract } from '../contract/contract-definition.ts';
import { resourceName } from './custom-resource-definition.ts';

// The names of crdgate's webhooks for a contract: the API server's messages name them ("admission webhook X denied
// the request"), and the policy floor's overlay patches them by name.

export function validatingWebhookName(contract: Contract): string {
  return `validate.${resourceName(contract.identity)}`;
}

/** Writes of /status, apart from the main webhook: a kind whose status crdgate only warns about must not block them. */
export function statusWebhookName(contract: Contract): string {
  return `status.${validatingWebhookName(contract)}`;
}

/** The validating webhook of /scale, apart from the main one so that the policy floor's Ignore leaves it failing closed. */
export function scaleWebhookName(contract: Contract): string {
  return `scale.${validatingWebhookName(contract)}`;
}

export function mutatingWebhookName(contract: Contract): string {
  return `mutate.${resourceName(contract.identity)}`;
}
