import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { schemaForApiServer } from './api-server-schema.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import { renderCustomResourceDefinition } from './custom-resource-definition.ts';
import type { Manifest } from './manifest.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';

const inCluster: WebhookEndpoint = { target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } } };
const spec = (crd: Manifest): any => crd['spec'];

describe('renderCustomResourceDefinition', () => {
  const contract = geoDatabaseContract();

  it('names the CRD plural.group and takes its names and scope from the identity', () => {
    const crd = renderCustomResourceDefinition(contract, inCluster);
    expect(crd).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'geodatabases.geo.example.com' },
    });
    expect(spec(crd).group).toBe('geo.example.com');
    expect(spec(crd).scope).toBe('Namespaced');
    expect(spec(crd).names).toEqual({
      kind: 'GeoDatabase',
      listKind: 'GeoDatabaseList',
      plural: 'geodatabases',
      singular: 'geodatabase',
      shortNames: ['geodb'],
    });
  });

  it('renders every version with its flags, schema, printer columns and subresources', () => {
    const versions = spec(renderCustomResourceDefinition(contract, inCluster)).versions;
    expect(versions.map((v: any) => [v.name, v.served, v.storage, v.deprecated])).toEqual([
      ['v1', true, true, undefined],
      ['v1beta1', true, false, undefined],
      ['v1alpha1', true, false, true],
    ]);
    const [v1, , v1alpha1] = versions;
    // crdgate's own formats are CEL rules there (api-server-schema.test.ts); nothing else differs.
    expect(v1.schema.openAPIV3Schema).toEqual(schemaForApiServer(contract.versions[0]!.schema));
    expect(v1.schema.openAPIV3Schema).not.toEqual(contract.versions[0]!.schema);
    expect(v1.additionalPrinterColumns).toContainEqual({
      name: 'Postgres',
      type: 'string',
      jsonPath: '.spec.postgres.version',
    });
    expect(v1.subresources).toEqual({ status: {} });
    expect(v1alpha1.deprecationWarning).toBe(
      'geo.example.com/v1alpha1 GeoDatabase is deprecated; use geo.example.com/v1',
    );
    expect(v1).not.toHaveProperty('deprecationWarning');
  });

  it("keeps the contract's CRD annotations and selectable fields, and renders neither when there are none", () => {
    const withExtras = {
      ...contract,
      crdAnnotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' },
      versions: contract.versions.map((version, i) =>
        i === 0 ? { ...version, selectableFields: [{ jsonPath: '.spec.postgres.version' }] } : version,
      ),
    };
    const crd = renderCustomResourceDefinition(withExtras, inCluster);
    expect(crd.metadata).toEqual({
      name: 'geodatabases.geo.example.com',
      annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' },
    });
    expect(spec(crd).versions[0].selectableFields).toEqual([{ jsonPath: '.spec.postgres.version' }]);
    expect(spec(crd).versions[1]).not.toHaveProperty('selectableFields');
    const plain = renderCustomResourceDefinition(contract, inCluster);
    expect(plain.metadata).not.toHaveProperty('annotations');
    expect(spec(plain).versions[0]).not.toHaveProperty('selectableFields');
  });

  it('copies the schemas, so changing the rendered CRD cannot change the contract', () => {
    const crd = renderCustomResourceDefinition(contract, inCluster);
    spec(crd).versions[0].schema.openAPIV3Schema.properties.spec.required.push('surprise');
    expect(contract.versions[0]!.schema.properties!['spec']!.required).toEqual(['postgres', 'storage']);
  });

  it('converts through the webhook on the in-cluster Service when there are several versions', () => {
    const conversion = spec(renderCustomResourceDefinition(contract, { ...inCluster, caBundlePem: 'PEM' })).conversion;
    expect(conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: { namespace: 'crdgate-system', name: 'crdgate', path: '/convert', port: 443 },
          caBundle: Buffer.from('PEM').toString('base64'),
        },
      },
    });
  });

  it('converts through the webhook at a URL when crdgate runs outside the cluster', () => {
    const conversion = spec(
      renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:9443' } }),
    ).conversion;
    expect(conversion.webhook.clientConfig).toEqual({ url: 'https://127.0.0.1:9443/convert' });
  });

  it('needs no conversion for a single version, and fills in what the identity leaves out', () => {
    const crd = renderCustomResourceDefinition(clusterWidgetContract(), inCluster);
    expect(spec(crd).conversion).toEqual({ strategy: 'None' });
    expect(spec(crd).scope).toBe('Cluster');
    expect(spec(crd).names).toEqual({
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      categories: ['all'],
    });
    expect(spec(crd).versions[0]).not.toHaveProperty('subresources');
    expect(spec(crd).versions[0]).not.toHaveProperty('additionalPrinterColumns');
  });
});
