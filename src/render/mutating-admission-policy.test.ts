import { describe, expect, it } from 'vitest';
import { staticDefault } from '../contract/defaults/library-defaults.ts';
import { type Defaulter } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { compileContractDefaults } from '../policy/compile-defaults.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import { renderManifestTree } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';
import { renderMutatingAdmissionPolicies } from './mutating-admission-policy.ts';

const ownFunction: Defaulter = (object) => object;
const widgetWith = (defaults: Parameters<typeof defineContract>[0]['defaults']) => {
  const widget = clusterWidgetContract();
  const schema = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
  } as const;
  return defineContract({ ...widget, versions: [{ ...widget.versions[0]!, schema }], defaults });
};

describe('renderMutatingAdmissionPolicies', () => {
  it('renders a policy and its binding per contract with a default that compiles, named as the validating policy', () => {
    const contracts = [geoDatabaseContract(), clusterWidgetContract(), widgetWith(ownFunction)];
    const manifests = renderMutatingAdmissionPolicies(contracts, 'team-a');
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'MutatingAdmissionPolicy/team-a.geodatabases.geo.example.com',
      'MutatingAdmissionPolicyBinding/team-a.geodatabases.geo.example.com',
    ]);
    expect(manifests[0]!['spec']).toEqual({
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: {
        matchPolicy: 'Equivalent',
        resourceRules: [
          {
            apiGroups: ['geo.example.com'],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['geodatabases'],
            scope: 'Namespaced',
          },
        ],
      },
      mutations: compileContractDefaults(geoDatabaseContract()).mutations,
    });
    expect(manifests[1]!['spec']).toEqual({ policyName: 'team-a.geodatabases.geo.example.com' });
  });

  it('puts a contract whose only floor is a default in the policy-floor overlay, cluster-scoped too', () => {
    const widget = widgetWith([staticDefault('spec.size', 1), ownFunction]);
    const [policy] = renderMutatingAdmissionPolicies([widget], 'crdgate');
    expect(policy!['spec']).toMatchObject({
      matchConstraints: { resourceRules: [{ resources: ['widgets'], scope: 'Cluster' }] },
      mutations: [{ patchType: 'JSONPatch' }],
    });
    const tree = renderManifestTree([widget], { ...manifestDefaults, caBundlePem: 'PEM' });
    const floor = tree.find((file) => file.path === 'overlays/policy-floor/admission-policies.yaml');
    expect(floor && 'manifests' in floor ? floor.manifests.map((m) => m.kind) : []).toEqual([
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
    ]);
    expect(
      renderManifestTree([widgetWith(ownFunction)], { ...manifestDefaults, caBundlePem: 'PEM' }).map(
        (file) => file.path,
      ),
    ).not.toContain('overlays/policy-floor/admission-policies.yaml');
  });
});
