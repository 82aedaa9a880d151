import type { Contract } from '../contract/contract-definition.ts';
import { compileContractDefaults } from '../policy/compile-defaults.ts';
import { admissionPolicyName, hubMatchConstraints } from './admission-policy.ts';
import type { Manifest } from './manifest.ts';

// The policy floor's defaults: the library's defaults of each contract, set by the API server itself whether crdgate
// is up or not (src/policy/compile-defaults.ts says which compile, and why the webhook's patch and the policy's agree).

/** A MutatingAdmissionPolicy and its binding per contract with a default that compiles; named as the validating one. */
export function renderMutatingAdmissionPolicies(contracts: readonly Contract[], installName: string): Manifest[] {
  return contracts.flatMap((contract) => {
    const { mutations } = compileContractDefaults(contract);
    if (mutations.length === 0) return [];
    const name = admissionPolicyName(installName, contract);
    return [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicy',
        metadata: { name },
        spec: {
          // A mutation that cannot be evaluated (over the cost budget, say) refuses the write: fail closed, as the webhook.
          failurePolicy: 'Fail',
          // Applied once, before every mutating webhook: crdgate's webhook then applies all defaults to what it returns,
          // as it applies them to what the client sent. Reinvoked after the webhook, it could set a default the
          // webhook's own order had left alone (one read by a function of its own that runs before it).
          reinvocationPolicy: 'Never',
          // The webhook's defaults: writes of the resource itself, never of its status.
          matchConstraints: hubMatchConstraints(contract, ['CREATE', 'UPDATE']),
          mutations,
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicyBinding',
        metadata: { name },
        spec: { policyName: name },
      },
    ];
  });
}
