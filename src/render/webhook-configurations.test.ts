import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest } from './manifest.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';
import { renderMutatingWebhookConfiguration, renderValidatingWebhookConfiguration } from './webhook-configurations.ts';

const byUrl: WebhookEndpoint = { target: { url: 'https://10.1.2.3:9443' }, caBundlePem: '-----BEGIN CERTIFICATE-----\n' };
const webhooks = (configuration: Manifest): any[] => configuration['webhooks'] as any[];

describe('renderValidatingWebhookConfiguration', () => {
  it('registers one webhook per contract for the hub version, with the settings the API server needs', () => {
    const [geo, widget] = webhooks(renderValidatingWebhookConfiguration([geoDatabaseContract(), clusterWidgetContract()], byUrl));
    expect(geo).toEqual({
      name: 'validate.geodatabases.geo.example.com',
      clientConfig: { url: 'https://10.1.2.3:9443/validate', caBundle: Buffer.from(byUrl.caBundlePem!).toString('base64') },
      rules: [
        { apiGroups: ['geo.example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE', 'DELETE'], resources: ['geodatabases'], scope: 'Namespaced' },
        { apiGroups: ['geo.example.com'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['geodatabases/status'], scope: 'Namespaced' },
      ],
      matchPolicy: 'Equivalent',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
    });
    expect(widget.name).toBe('validate.widgets.widgets.example.org');
    // No status subresource, so no rule for one.
    expect(widget.rules).toEqual([
      { apiGroups: ['widgets.example.org'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE', 'DELETE'], resources: ['widgets'], scope: 'Cluster' },
    ]);
  });

  it('calls the in-cluster Service without a caBundle when none is given', () => {
    const endpoint: WebhookEndpoint = { target: { service: { namespace: 'ops', name: 'crdgate', port: 443 } } };
    const [geo] = webhooks(renderValidatingWebhookConfiguration([geoDatabaseContract()], endpoint));
    expect(geo.clientConfig).toEqual({ service: { namespace: 'ops', name: 'crdgate', path: '/validate', port: 443 } });
  });
});

describe('renderValidatingWebhookConfiguration with a scale subresource', () => {
  it('adds a webhook of its own for UPDATE of /scale on the hub, with the same endpoint and settings', () => {
    const [main, scale, ...rest] = webhooks(renderValidatingWebhookConfiguration([scalableGeoDatabaseContract(), clusterWidgetContract()], byUrl));
    expect(main.name).toBe('validate.geodatabases.geo.example.com');
    expect(scale).toEqual({
      name: 'scale.validate.geodatabases.geo.example.com',
      clientConfig: main.clientConfig,
      rules: [{ apiGroups: ['geo.example.com'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['geodatabases/scale'], scope: 'Namespaced' }],
      matchPolicy: 'Equivalent',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
    });
    // Only where the hub has one.
    expect(rest.map((webhook) => webhook.name)).toEqual(['validate.widgets.widgets.example.org']);
    // Defaults never apply to a Scale.
    expect(webhooks(renderMutatingWebhookConfiguration([scalableGeoDatabaseContract()], byUrl)).map((webhook) => webhook.rules)).toEqual([
      [{ apiGroups: ['geo.example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['geodatabases'], scope: 'Namespaced' }],
    ]);
  });
});

describe('renderMutatingWebhookConfiguration', () => {
  it('defaults on creation and update of the resource only, never on its status or on deletion', () => {
    const [geo] = webhooks(renderMutatingWebhookConfiguration([geoDatabaseContract()], byUrl));
    expect(geo).toMatchObject({
      name: 'mutate.geodatabases.geo.example.com',
      clientConfig: { url: 'https://10.1.2.3:9443/mutate' },
      rules: [{ apiGroups: ['geo.example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['geodatabases'], scope: 'Namespaced' }],
      matchPolicy: 'Equivalent',
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 10,
      reinvocationPolicy: 'IfNeeded',
    });
  });
});
