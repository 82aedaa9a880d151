import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { ManifestFile } from './manifest.ts';
import { renderManifestFiles, renderManifestTree, webhookEndpointFor } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';

const contents = (files: ManifestFile[]): Array<[string, string[]]> => files.map((file) => [file.path, file.manifests.map((m) => `${m.kind}/${m.metadata.name}`)]);

describe('renderManifestFiles', () => {
  it('renders the namespace, the server, the CRDs and the webhooks in apply order in base/, and the migration apart', () => {
    expect(contents(renderManifestFiles([geoDatabaseContract()], manifestDefaults))).toEqual([
      ['base/00-namespace.yaml', ['Namespace/crdgate-system']],
      ['base/10-crdgate-server.yaml', ['ServiceAccount/crdgate', 'Service/crdgate', 'Deployment/crdgate', 'PodDisruptionBudget/crdgate']],
      ['base/15-network-policy.yaml', ['NetworkPolicy/crdgate']],
      ['base/20-crd-geodatabases.geo.example.com.yaml', ['CustomResourceDefinition/geodatabases.geo.example.com']],
      ['base/30-webhook-configurations.yaml', ['ValidatingWebhookConfiguration/crdgate', 'MutatingWebhookConfiguration/crdgate']],
      [
        'migration/storage-migration.yaml',
        ['ServiceAccount/crdgate-migrate', 'ClusterRole/crdgate-migrate', 'ClusterRoleBinding/crdgate-migrate', 'Job/crdgate-migrate-geodatabases'],
      ],
    ]);
  });

  it('leaves the in-cluster server and its NetworkPolicy out when crdgate is called by URL', () => {
    const paths = renderManifestFiles([geoDatabaseContract()], { ...manifestDefaults, url: 'https://10.0.0.5:8443' }).map((f) => f.path);
    expect(paths).not.toContain('base/10-crdgate-server.yaml');
    expect(paths).not.toContain('base/15-network-policy.yaml');
    expect(paths).toContain('base/30-webhook-configurations.yaml');
  });
});

describe('renderManifestTree', () => {
  const kustomizationResources = (files: ReturnType<typeof renderManifestTree>, path: string): unknown => {
    const file = files.find((f) => f.path === path);
    return file && 'manifests' in file ? file.manifests[0]!['resources'] : undefined;
  };

  it('lists every file of base/ in its kustomization, and base/ in the top-level one', () => {
    const tree = renderManifestTree([geoDatabaseContract(), clusterWidgetContract()], manifestDefaults);
    const baseFiles = tree.map((f) => f.path).filter((path) => path.startsWith('base/') && path !== 'base/kustomization.yaml');
    expect(baseFiles).toHaveLength(6);
    expect(kustomizationResources(tree, 'base/kustomization.yaml')).toEqual(baseFiles.map((path) => path.slice('base/'.length)));
    expect(kustomizationResources(tree, 'kustomization.yaml')).toEqual(['base']);
  });

  it('renders the cert-manager overlay and the monitoring kustomization beside the base, never inside it', () => {
    const paths = renderManifestTree([geoDatabaseContract()], manifestDefaults).map((f) => f.path);
    expect(paths.filter((path) => path.startsWith('overlays/'))).toEqual([
      'overlays/cert-manager/kustomization.yaml',
      'overlays/cert-manager/certificates.yaml',
      'overlays/cert-manager/inject-ca.yaml',
      'overlays/monitoring/kustomization.yaml',
      'overlays/monitoring/service-monitor.yaml',
      'overlays/monitoring/crdgate-dashboard.json',
    ]);
    expect(kustomizationResources(renderManifestTree([geoDatabaseContract()], manifestDefaults), 'overlays/cert-manager/kustomization.yaml')).toContain('../../base');
  });

  it('renders no cert-manager overlay when the caBundle is given by hand, and no overlays at all for a crdgate called by URL', () => {
    const byHand = renderManifestTree([geoDatabaseContract()], { ...manifestDefaults, caBundlePem: 'PEM' }).map((f) => f.path);
    expect(byHand.some((path) => path.startsWith('overlays/cert-manager/'))).toBe(false);
    expect(byHand).toContain('overlays/monitoring/service-monitor.yaml');
    const byUrl = renderManifestTree([geoDatabaseContract()], { ...manifestDefaults, url: 'https://10.0.0.5:8443' }).map((f) => f.path);
    expect(byUrl.some((path) => path.startsWith('overlays/'))).toBe(false);
  });
});

describe('webhookEndpointFor', () => {
  it('calls the crdgate Service in the namespace on port 443 by default', () => {
    expect(webhookEndpointFor({ namespace: 'ops', image: 'i', caBundlePem: 'PEM' })).toEqual({
      target: { service: { namespace: 'ops', name: 'crdgate', port: 443 } },
      caBundlePem: 'PEM',
    });
  });

  it('calls the URL when one is given', () => {
    expect(webhookEndpointFor({ namespace: 'ops', image: 'i', url: 'https://10.0.0.5:8443' })).toEqual({ target: { url: 'https://10.0.0.5:8443' } });
  });
});
