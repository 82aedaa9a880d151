import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { renderManifestFiles, webhookEndpointFor } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';

const contents = (files: ReturnType<typeof renderManifestFiles>): Array<[string, string[]]> =>
  files.map((file) => [file.path, file.manifests.map((m) => `${m.kind}/${m.metadata.name}`)]);

describe('renderManifestFiles', () => {
  it('renders the namespace, the server, the CRDs and the webhooks in apply order, and the migration apart', () => {
    expect(contents(renderManifestFiles([geoDatabaseContract()], manifestDefaults))).toEqual([
      ['00-namespace.yaml', ['Namespace/crdgate-system']],
      ['10-crdgate-server.yaml', ['ServiceAccount/crdgate', 'Service/crdgate', 'Deployment/crdgate', 'PodDisruptionBudget/crdgate']],
      ['20-crd-geodatabases.geo.example.com.yaml', ['CustomResourceDefinition/geodatabases.geo.example.com']],
      ['30-webhook-configurations.yaml', ['ValidatingWebhookConfiguration/crdgate', 'MutatingWebhookConfiguration/crdgate']],
      [
        'migration/storage-migration.yaml',
        ['ServiceAccount/crdgate-migrate', 'ClusterRole/crdgate-migrate', 'ClusterRoleBinding/crdgate-migrate', 'Job/crdgate-migrate-geodatabases'],
      ],
    ]);
  });

  it('leaves the in-cluster server out when crdgate is called by URL', () => {
    const paths = renderManifestFiles([geoDatabaseContract()], { ...manifestDefaults, url: 'https://10.0.0.5:8443' }).map((f) => f.path);
    expect(paths).not.toContain('10-crdgate-server.yaml');
    expect(paths).toContain('30-webhook-configurations.yaml');
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
