import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import type { AdmissionRequest } from './review.ts';
import { deny, type Verdict } from './verdict.ts';

/** The contract a review is about, or the denial for a kind no contract knows: never allowed silently. */
export function routeReview(registry: ContractRegistry, request: AdmissionRequest): CompiledContract | Verdict {
  const { group, kind } = request.kind;
  const compiled = registry.lookup(group, kind);
  if (compiled) return compiled;
  return deny('KIND_UNKNOWN', unknownKindMessage(registry, request));
}

export function isVerdict(value: CompiledContract | Verdict): value is Verdict {
  return 'allowed' in value;
}

/**
 * Why crdgate has no contract for a request, and what to fix. The API server calls the webhook for the resources
 * its configuration names, with the kind the CRD declares (spec.names.kind): a contract that serves the resource
 * under another kind (a lowercase `postgresql` written `Postgresql`, say) would deny every write of it, so the
 * denial says which names differ.
 */
function unknownKindMessage(registry: ContractRegistry, request: AdmissionRequest): string {
  const { group, kind } = request.kind;
  const resource = request.resource;
  const ofResource =
    resource === undefined
      ? undefined
      : registry.contracts.find(
          ({ contract: { identity } }) => identity.group === resource.group && identity.plural === resource.resource,
        );
  if (ofResource) {
    const { identity } = ofResource.contract;
    return (
      `crdgate has no contract for ${kind}.${group || 'core'}: the contract for resource ${identity.plural}.${identity.group} ` +
      `declares kind ${identity.kind}, the API server sends kind ${kind}: make the contract's kind equal the CRD's spec.names.kind`
    );
  }
  const known = registry.contracts.map((c) => `${c.contract.identity.kind}.${c.contract.identity.group}`).join(', ');
  return `crdgate has no contract for ${kind}.${group || 'core'} (it knows: ${known || 'nothing'})`;
}
