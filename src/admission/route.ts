import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import type { AdmissionRequest } from './review.ts';
import { deny, type Verdict } from './verdict.ts';

/** The contract a review is about, or the denial for a kind no contract knows: never allowed silently. */
export function routeReview(registry: ContractRegistry, request: AdmissionRequest): CompiledContract | Verdict {
  const { group, kind } = request.kind;
  const compiled = registry.lookup(group, kind);
  if (compiled) return compiled;
  const known = registry.contracts.map((c) => `${c.contract.identity.kind}.${c.contract.identity.group}`).join(', ');
  return deny(
    'KIND_UNKNOWN',
    `crdgate has no contract for ${kind}.${group || 'core'} (it knows: ${known || 'nothing'})`,
  );
}

export function isVerdict(value: CompiledContract | Verdict): value is Verdict {
  return 'allowed' in value;
}
