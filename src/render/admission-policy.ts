import type { Contract } from '../contract/contract-definition.ts';
import { compileContractPolicy } from '../policy/compile-policy.ts';
import { resourceName } from './custom-resource-definition.ts';
import { installNames } from './in-cluster-names.ts';
import { renderKustomization } from './kustomization.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import { scaleWebhookName } from './webhook-names.ts';
import { contractWebhooks } from './webhook-reach.ts';

// The policy floor: what the API server enforces itself, from the contract's compiled FSA and
// deletion protections, whether crdgate is up or not.

export function admissionPolicyName(installName: string, contract: Contract): string {
  return `${installName}.${resourceName(contract.identity)}`;
}

/** A ValidatingAdmissionPolicy and its binding per contract that has anything compiled. */
export function renderAdmissionPolicies(contracts: readonly Contract[], installName: string): Manifest[] {
  return contracts.flatMap((contract) => {
    const policy = compileContractPolicy(contract);
    if (policy.operations.length === 0) return [];
    const name = admissionPolicyName(installName, contract);
    return [
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        spec: {
          // A policy that cannot be evaluated (its CEL over the cost budget, say) refuses: fail closed, as the webhook.
          failurePolicy: 'Fail',
          matchConstraints: hubMatchConstraints(contract, policy.operations),
          variables: policy.variables,
          validations: policy.validations,
        },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name },
        spec: { policyName: name, validationActions: ['Deny'] },
      },
    ];
  });
}

/** A policy's match: writes of the resource itself (never a subresource) in the hub version. */
export function hubMatchConstraints(contract: Contract, operations: readonly string[]): Record<string, unknown> {
  return {
    // The hub, as the webhooks: Equivalent has the API server convert a request in another version first.
    matchPolicy: 'Equivalent',
    resourceRules: [
      {
        apiGroups: [contract.identity.group],
        apiVersions: [contract.hub],
        operations,
        resources: [contract.identity.plural],
        scope: contract.identity.scope,
      },
    ],
  };
}

const availabilityComment = `crdgate with the policy floor: its webhooks (all but /scale's) at failurePolicy: Ignore, so a crdgate outage blocks no write,
and the admission policies beside this file. It builds on what gives the webhooks their caBundle (the
cert-manager overlay, or a base rendered with --ca-bundle): a webhook the API server cannot trust would be skipped
in silence under Ignore. The policies answer before the webhooks for what they compile, in the hub's field names.
While crdgate is down, the policies still refuse what they compile (unsupported changes,
changes a state does not allow, protected deletions) and set the defaults that compile; invariants, crdgate's
schema checks and defaults written as functions are not applied, and conversion of any version other than the
storage version still needs crdgate.
See docs/operations.md, "Surviving a crdgate outage: the policy floor", before choosing this over the base.`;

/**
 * The availability overlay: the install, plus the policies, with its webhooks (all but /scale's) set to let requests through when
 * crdgate cannot answer. `install` is the kustomization it builds on, which must give the webhooks their caBundle
 * (the base rendered with one, or the cert-manager overlay): with Ignore, a webhook the API server cannot trust is
 * one it silently skips.
 */
export function renderPolicyFloorOverlay(
  dir: string,
  contracts: readonly Contract[],
  installName: string,
  install: string,
  policies: Manifest[],
): ManifestFile[] {
  const { webhookConfiguration } = installNames(installName);
  const ignoring = (name: string) => ({ name, failurePolicy: 'Ignore' });
  // Every webhook but /scale's, which no policy can stand in for; a configuration with none to patch is left alone.
  const names = (configuration: 'validating' | 'mutating') =>
    contracts.flatMap((c) =>
      contractWebhooks(c)
        .filter((webhook) => webhook.configuration === configuration && webhook.name !== scaleWebhookName(c))
        .map((webhook) => webhook.name),
    );
  const patch = (kind: string, configuration: 'validating' | 'mutating') =>
    names(configuration).length === 0
      ? []
      : [
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind,
            metadata: { name: webhookConfiguration },
            webhooks: names(configuration).map(ignoring),
          },
        ];
  return [
    {
      path: `${dir}/kustomization.yaml`,
      comment: availabilityComment,
      manifests: [
        renderKustomization('crdgate-policy-floor', {
          resources: [install, 'admission-policies.yaml'],
          patches: [{ path: 'ignore-webhook-failures.yaml' }],
        }),
      ],
    },
    { path: `${dir}/admission-policies.yaml`, manifests: policies, comment: policyComment },
    {
      path: `${dir}/ignore-webhook-failures.yaml`,
      manifests: [
        ...patch('ValidatingWebhookConfiguration', 'validating'),
        ...patch('MutatingWebhookConfiguration', 'mutating'),
      ],
    },
  ];
}

const policyComment = `The policy floor: the FSA and deletion protections compiled to CEL in a
ValidatingAdmissionPolicy, and the library's defaults in a MutatingAdmissionPolicy, enforced and set by the API
server itself even while crdgate is down. crdgate's webhooks stay the full authority; \`crdgate fsa --coverage\`
says which change kinds, rules and defaults the policies hold.`;
