import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { renderAdmissionPolicies, renderPolicyFloorOverlay } from './admission-policy.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import { renderMutatingWebhookConfigurations, renderValidatingWebhookConfiguration } from './webhook-configurations.ts';
import { scaleWebhookName } from './webhook-names.ts';

describe('renderAdmissionPolicies', () => {
  it('renders a policy and its binding per contract with anything compiled, named after the install', () => {
    const manifests = renderAdmissionPolicies([geoDatabaseContract(), clusterWidgetContract()], 'team-a');
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'ValidatingAdmissionPolicy/team-a.geodatabases.geo.example.com',
      'ValidatingAdmissionPolicyBinding/team-a.geodatabases.geo.example.com',
    ]);
    expect(manifests[0]!['spec']).toMatchObject({
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent' },
    });
  });
});

describe('renderPolicyFloorOverlay', () => {
  it('sets every webhook crdgate renders to Ignore, by the names the base gives them', () => {
    const contracts = [geoDatabaseContract(), clusterWidgetContract()];
    const endpoint = { target: { url: 'https://127.0.0.1:9443' } };
    const policies = renderAdmissionPolicies(contracts, 'team-a');
    const [kustomization, policyFile, patches] = renderPolicyFloorOverlay(
      'overlays/policy-floor',
      contracts,
      'team-a',
      '../cert-manager',
      policies,
    );
    expect(kustomization!.manifests[0]).toMatchObject({
      resources: ['../cert-manager', 'admission-policies.yaml'],
      patches: [{ path: 'ignore-webhook-failures.yaml' }],
    });
    expect(policyFile).toMatchObject({ path: 'overlays/policy-floor/admission-policies.yaml', manifests: policies });
    const base = [
      renderValidatingWebhookConfiguration(contracts, endpoint, 'team-a'),
      ...renderMutatingWebhookConfigurations(contracts, endpoint, 'team-a'),
    ];
    expect(patches!.manifests.map((patch) => [patch.kind, patch.metadata.name, patch['webhooks']])).toEqual(
      base.map((configuration) => [
        configuration.kind,
        configuration.metadata.name,
        (configuration['webhooks'] as { name: string }[]).map(({ name }) => ({ name, failurePolicy: 'Ignore' })),
      ]),
    );
  });

  it('leaves the /scale webhook failing closed: no policy can judge a Scale, so an outage must not let one through', () => {
    const contracts = [scalableGeoDatabaseContract()];
    const [, , patches] = renderPolicyFloorOverlay(
      'overlays/policy-floor',
      contracts,
      'crdgate',
      '../cert-manager',
      renderAdmissionPolicies(contracts, 'crdgate'),
    );
    const validating = renderValidatingWebhookConfiguration(contracts, { target: { url: 'https://127.0.0.1:9443' } });
    const names = (validating['webhooks'] as { name: string; failurePolicy: string }[]).map(
      ({ name, failurePolicy }) => [name, failurePolicy],
    );
    expect(names).toEqual([
      ['validate.geodatabases.geo.example.com', 'Fail'],
      ['status.validate.geodatabases.geo.example.com', 'Ignore'],
      ['scale.validate.geodatabases.geo.example.com', 'Fail'],
    ]);
    expect(patches!.manifests[0]!['webhooks']).toEqual([
      { name: 'validate.geodatabases.geo.example.com', failurePolicy: 'Ignore' },
      { name: 'status.validate.geodatabases.geo.example.com', failurePolicy: 'Ignore' },
    ]);
    expect(JSON.stringify(patches!.manifests)).not.toContain(scaleWebhookName(contracts[0]!));
  });
});
