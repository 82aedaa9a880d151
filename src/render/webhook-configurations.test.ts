import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import type { Contract, ContractDefinition } from '../contract/contract-definition.ts';
import { metadataDeletionRule } from '../contract/deletion-rules.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest } from './manifest.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';
import { renderMutatingWebhookConfigurations, renderValidatingWebhookConfiguration } from './webhook-configurations.ts';

const byUrl: WebhookEndpoint = {
  target: { url: 'https://10.1.2.3:9443' },
  caBundlePem: '-----BEGIN CERTIFICATE-----\n',
};
const webhooks = (configuration: Manifest): any[] => configuration['webhooks'] as any[];
/** The one mutating configuration rendered. */
const mutatingConfiguration = (...args: Parameters<typeof renderMutatingWebhookConfigurations>): Manifest => {
  const configurations = renderMutatingWebhookConfigurations(...args);
  expect(configurations).toHaveLength(1);
  return configurations[0]!;
};
const byName = (configuration: Manifest) =>
  Object.fromEntries(webhooks(configuration).map((webhook) => [webhook.name, webhook]));
const conditionNames = (webhook: any): string[] =>
  (webhook.matchConditions ?? []).map((condition: { name: string }) => condition.name);

function variant(overrides: Partial<ContractDefinition>): Contract {
  const { storageVersion: _derived, ...definition } = geoDatabaseContract();
  return defineContract({ ...definition, ...overrides });
}

describe('renderValidatingWebhookConfiguration', () => {
  it('registers the hub version with the settings the API server needs, each webhook for what its decisions can say', () => {
    const validating = byName(
      renderValidatingWebhookConfiguration([geoDatabaseContract(), clusterWidgetContract()], byUrl),
    );
    expect(Object.keys(validating)).toEqual([
      'validate.geodatabases.geo.example.com',
      'status.validate.geodatabases.geo.example.com',
      'validate.widgets.widgets.example.org',
    ]);
    const main = validating['validate.geodatabases.geo.example.com'];
    expect(main).toMatchObject({
      clientConfig: {
        url: 'https://10.1.2.3:9443/validate',
        caBundle: Buffer.from(byUrl.caBundlePem!).toString('base64'),
      },
      rules: [
        {
          apiGroups: ['geo.example.com'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          resources: ['geodatabases'],
          scope: 'Namespaced',
        },
      ],
      matchPolicy: 'Equivalent',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
    });
    // Updates that change nothing judged, and deletes of objects no protection holds, are skipped.
    expect(conditionNames(main)).toEqual(['update-changes-what-crdgate-judges', 'delete-of-a-protected-object']);
    // GeoDatabase's status is read by nothing but the machine's phase, about whose moves crdgate only warns.
    expect(validating['status.validate.geodatabases.geo.example.com']).toMatchObject({
      rules: [{ operations: ['UPDATE'], resources: ['geodatabases/status'] }],
      failurePolicy: 'Ignore',
    });
    expect(conditionNames(validating['status.validate.geodatabases.geo.example.com'])).toEqual([
      'status-write-changes-what-crdgate-judges',
    ]);
    // No deletion rules: no DELETE; no status subresource: no status webhook.
    expect(validating['validate.widgets.widgets.example.org'].rules).toEqual([
      {
        apiGroups: ['widgets.example.org'],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['widgets'],
        scope: 'Cluster',
      },
    ]);
  });

  it('fails status writes closed where a status write can be refused: invariants that read the status', () => {
    const validating = byName(renderValidatingWebhookConfiguration([variant({ reads: { status: true } })], byUrl));
    expect(validating['status.validate.geodatabases.geo.example.com']).toMatchObject({ failurePolicy: 'Fail' });
  });

  it('sends no status write where nothing but the API server judges the status', () => {
    const validating = byName(renderValidatingWebhookConfiguration([variant({ transitions: undefined })], byUrl));
    expect(Object.keys(validating)).toEqual(['validate.geodatabases.geo.example.com']);
  });

  it('sends every DELETE where a deletion rule is code, and every UPDATE where the schema keeps unknown top-level fields', () => {
    const code = variant({
      deletionRules: [
        metadataDeletionRule(function keepLabelled(object) {
          return object.metadata?.labels?.['keep'] === 'yes' ? 'kept' : undefined;
        }),
      ],
    });
    expect(
      conditionNames(
        byName(renderValidatingWebhookConfiguration([code], byUrl))['validate.geodatabases.geo.example.com'],
      ),
    ).toEqual(['update-changes-what-crdgate-judges']);
    const geo = geoDatabaseContract();
    const open = variant({
      versions: geo.versions.map((version) =>
        version.name === geo.hub
          ? { ...version, schema: { ...version.schema, 'x-kubernetes-preserve-unknown-fields': true } }
          : version,
      ),
    });
    expect(
      conditionNames(
        byName(renderValidatingWebhookConfiguration([open], byUrl))['validate.geodatabases.geo.example.com'],
      ),
    ).toEqual(['delete-of-a-protected-object']);
  });

  it('calls the in-cluster Service without a caBundle when none is given', () => {
    const endpoint: WebhookEndpoint = { target: { service: { namespace: 'ops', name: 'crdgate', port: 443 } } };
    const [geo] = webhooks(renderValidatingWebhookConfiguration([geoDatabaseContract()], endpoint));
    expect(geo.clientConfig).toEqual({ service: { namespace: 'ops', name: 'crdgate', path: '/validate', port: 443 } });
  });

  it("renders a team's settings on every webhook, and keeps a webhook that can only warn at Ignore and a second", () => {
    const settings = {
      failurePolicy: 'Ignore' as const,
      timeoutSeconds: 3,
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'NotIn' as const, values: ['platform'] }] },
      objectSelector: { matchLabels: { 'crdgate.io/judged': 'yes' } },
    };
    const all = [
      ...webhooks(renderValidatingWebhookConfiguration([scalableGeoDatabaseContract()], byUrl, 'crdgate', settings)),
      ...webhooks(mutatingConfiguration([scalableGeoDatabaseContract()], byUrl, 'crdgate', settings)),
    ];
    expect(all.map((webhook) => webhook.name)).toEqual([
      'validate.geodatabases.geo.example.com',
      'status.validate.geodatabases.geo.example.com',
      'scale.validate.geodatabases.geo.example.com',
      'mutate.geodatabases.geo.example.com',
    ]);
    for (const webhook of all) {
      expect(webhook).toMatchObject({
        failurePolicy: 'Ignore',
        namespaceSelector: settings.namespaceSelector,
        objectSelector: settings.objectSelector,
      });
    }
    // The status writes' webhook can only warn: it never holds an operator's status write for more than a second.
    expect(all.map((webhook) => webhook.timeoutSeconds)).toEqual([3, 1, 3, 3]);
    const failing = webhooks(
      renderValidatingWebhookConfiguration([scalableGeoDatabaseContract()], byUrl, 'crdgate', {
        failurePolicy: 'Fail',
      }),
    );
    expect(failing.map((webhook) => webhook.failurePolicy)).toEqual(['Fail', 'Ignore', 'Fail']);
  });
});

describe('renderValidatingWebhookConfiguration with a scale subresource', () => {
  it('adds a webhook of its own for UPDATE of /scale on the hub that changes the replicas, with the same endpoint and settings', () => {
    const [main, status, scale, ...rest] = webhooks(
      renderValidatingWebhookConfiguration([scalableGeoDatabaseContract(), clusterWidgetContract()], byUrl),
    );
    expect([main.name, status.name]).toEqual([
      'validate.geodatabases.geo.example.com',
      'status.validate.geodatabases.geo.example.com',
    ]);
    expect(scale).toMatchObject({
      name: 'scale.validate.geodatabases.geo.example.com',
      clientConfig: main.clientConfig,
      rules: [
        {
          apiGroups: ['geo.example.com'],
          apiVersions: ['v1'],
          operations: ['UPDATE'],
          resources: ['geodatabases/scale'],
          scope: 'Namespaced',
        },
      ],
      matchPolicy: 'Equivalent',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
    });
    expect(conditionNames(scale)).toEqual(['scale-changes-replicas']);
    // Only where the hub has one.
    expect(rest.map((webhook) => webhook.name)).toEqual(['validate.widgets.widgets.example.org']);
    // Defaults never apply to a Scale.
    expect(
      webhooks(mutatingConfiguration([scalableGeoDatabaseContract()], byUrl)).map((webhook) => webhook.rules),
    ).toEqual([
      [
        {
          apiGroups: ['geo.example.com'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['geodatabases'],
          scope: 'Namespaced',
        },
      ],
    ]);
  });
});

describe('renderMutatingWebhookConfiguration', () => {
  it('defaults on creation, and on updates that change what the defaults see, of the resource only', () => {
    const [geo] = webhooks(mutatingConfiguration([geoDatabaseContract()], byUrl));
    expect(geo).toMatchObject({
      name: 'mutate.geodatabases.geo.example.com',
      clientConfig: { url: 'https://10.1.2.3:9443/mutate' },
      rules: [
        {
          apiGroups: ['geo.example.com'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['geodatabases'],
          scope: 'Namespaced',
        },
      ],
      matchPolicy: 'Equivalent',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
      reinvocationPolicy: 'IfNeeded',
    });
    expect(conditionNames(geo)).toEqual(['update-changes-what-the-defaults-see']);
  });

  it('renders no mutating webhook for a contract without defaults', () => {
    expect(
      webhooks(mutatingConfiguration([clusterWidgetContract(), geoDatabaseContract()], byUrl)).map(
        (webhook) => webhook.name,
      ),
    ).toEqual(['mutate.geodatabases.geo.example.com']);
    // No configuration at all where no contract has defaults: an empty one would be one more object to install.
    expect(renderMutatingWebhookConfigurations([clusterWidgetContract()], byUrl)).toEqual([]);
  });
});
