import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import { renderManifestFiles, renderManifestTree, webhookEndpointFor } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';

const contents = (files: ManifestFile[]): Array<[string, string[]]> =>
  files.map((file) => [file.path, file.manifests.map((m) => `${m.kind}/${m.metadata.name}`)]);

describe('renderManifestFiles', () => {
  it('renders the namespace, the server, the CRDs and the webhooks in apply order in base/, and the migration apart', () => {
    expect(contents(renderManifestFiles([geoDatabaseContract()], manifestDefaults))).toEqual([
      ['base/00-namespace.yaml', ['Namespace/crdgate-system']],
      [
        'base/10-crdgate-server.yaml',
        ['ServiceAccount/crdgate', 'Service/crdgate', 'Deployment/crdgate', 'PodDisruptionBudget/crdgate'],
      ],
      ['base/15-network-policy.yaml', ['NetworkPolicy/crdgate']],
      ['base/20-crd-geodatabases.geo.example.com.yaml', ['CustomResourceDefinition/geodatabases.geo.example.com']],
      [
        'base/30-webhook-configurations.yaml',
        ['ValidatingWebhookConfiguration/crdgate', 'MutatingWebhookConfiguration/crdgate'],
      ],
      [
        'migration/storage-migration.yaml',
        [
          'ServiceAccount/crdgate-migrate',
          'ClusterRole/crdgate-migrate',
          'ClusterRoleBinding/crdgate-migrate',
          'PriorityLevelConfiguration/crdgate-migrate',
          'FlowSchema/crdgate-migrate',
          'Job/crdgate-migrate-geodatabases',
        ],
      ],
    ]);
  });

  it('leaves the in-cluster server and its NetworkPolicy out when crdgate is called by URL, and its Namespace goes with the migration', () => {
    expect(
      contents(
        renderManifestFiles([geoDatabaseContract()], {
          ...manifestDefaults,
          namespace: 'ops',
          url: 'https://10.0.0.5:8443',
        }),
      ),
    ).toEqual([
      ['base/20-crd-geodatabases.geo.example.com.yaml', ['CustomResourceDefinition/geodatabases.geo.example.com']],
      [
        'base/30-webhook-configurations.yaml',
        ['ValidatingWebhookConfiguration/crdgate', 'MutatingWebhookConfiguration/crdgate'],
      ],
      [
        'migration/storage-migration.yaml',
        [
          'Namespace/ops',
          'ServiceAccount/crdgate-migrate',
          'ClusterRole/crdgate-migrate',
          'ClusterRoleBinding/crdgate-migrate',
          'PriorityLevelConfiguration/crdgate-migrate',
          'FlowSchema/crdgate-migrate',
          'Job/crdgate-migrate-geodatabases',
        ],
      ],
    ]);
  });
});

describe('renderManifestFiles for a contract with a scale subresource', () => {
  const files = renderManifestFiles([scalableGeoDatabaseContract(), clusterWidgetContract()], manifestDefaults);
  const manifest = (path: string, kind: string): any =>
    files.find((file) => file.path === path)!.manifests.find((m) => m.kind === kind);

  it('grants the server get on exactly the scale-bearing resources, and nothing else', () => {
    expect(contents(files).slice(0, 4)).toEqual([
      ['base/00-namespace.yaml', ['Namespace/crdgate-system']],
      [
        'base/10-crdgate-server.yaml',
        ['ServiceAccount/crdgate', 'Service/crdgate', 'Deployment/crdgate', 'PodDisruptionBudget/crdgate'],
      ],
      ['base/12-scale-reads.yaml', ['ClusterRole/crdgate-scale-reads', 'ClusterRoleBinding/crdgate-scale-reads']],
      ['base/15-network-policy.yaml', ['NetworkPolicy/crdgate']],
    ]);
    expect(manifest('base/12-scale-reads.yaml', 'ClusterRole').rules).toEqual([
      { apiGroups: ['geo.example.com'], resources: ['geodatabases'], verbs: ['get'] },
    ]);
    expect(manifest('base/12-scale-reads.yaml', 'ClusterRoleBinding')).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'crdgate-scale-reads' },
      subjects: [{ kind: 'ServiceAccount', name: 'crdgate', namespace: 'crdgate-system' }],
    });
  });

  it("mounts the server's ServiceAccount token in its pods only, and lets them reach the API server", () => {
    expect(manifest('base/10-crdgate-server.yaml', 'Deployment').spec.template.spec.automountServiceAccountToken).toBe(
      true,
    );
    expect(manifest('base/10-crdgate-server.yaml', 'ServiceAccount').automountServiceAccountToken).toBe(false);
    expect(manifest('base/15-network-policy.yaml', 'NetworkPolicy').spec.egress).toEqual([
      {
        ports: [
          { port: 443, protocol: 'TCP' },
          { port: 6443, protocol: 'TCP' },
        ],
      },
    ]);
  });

  it('renders none of it for contracts without one', () => {
    const plain = renderManifestFiles([geoDatabaseContract(), clusterWidgetContract()], manifestDefaults);
    const deployment: any = plain.flatMap((file) => file.manifests).find((m) => m.kind === 'Deployment');
    expect(deployment.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(plain.map((file) => file.path)).not.toContain('base/12-scale-reads.yaml');
  });

  it('renders the ClusterRole when called by URL too, for the identity crdgate runs with outside the cluster', () => {
    const byUrl = renderManifestFiles([scalableGeoDatabaseContract()], {
      ...manifestDefaults,
      url: 'https://10.0.0.5:8443',
    });
    expect(contents(byUrl).slice(0, 1)).toEqual([
      ['base/12-scale-reads.yaml', ['ClusterRole/crdgate-scale-reads', 'ClusterRoleBinding/crdgate-scale-reads']],
    ]);
    expect(byUrl.flatMap((file) => file.manifests).map((m) => m.kind)).not.toContain('NetworkPolicy');
  });
});

describe('renderManifestTree with --name', () => {
  const everything = (name: string, namespace = 'shared'): Manifest[] =>
    renderManifestTree([geoDatabaseContract()], { ...manifestDefaults, name, namespace }).flatMap((file) =>
      'manifests' in file ? file.manifests : [],
    );
  const identities = (manifests: Manifest[]): string[] =>
    manifests
      .filter((m) => m.kind !== 'Kustomization' && m.kind !== 'Namespace' && m.kind !== 'CustomResourceDefinition')
      .map((m) => `${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`);

  it('gives two installs in one namespace no object in common, cluster-scoped ones included', () => {
    const a = identities(everything('team-a'));
    const b = new Set(identities(everything('team-b')));
    expect(a.length).toBeGreaterThan(10);
    expect(a.filter((identity) => b.has(identity))).toEqual([]);
    expect(a).toEqual(
      expect.arrayContaining([
        'ValidatingWebhookConfiguration//team-a',
        'ClusterRole//team-a-migrate',
        'Service/shared/team-a',
      ]),
    );
  });

  it("selects only the install's own pods, and calls and mounts what the install names", () => {
    const labelsOf = (manifests: Manifest[], kind: string): Record<string, string> =>
      (manifests.find((m) => m.kind === kind)!['spec'] as any).template.metadata.labels;
    const [a, b] = [everything('team-a'), everything('team-b')];
    const selectors = a.flatMap((m) => {
      const spec = m['spec'] as any;
      return [
        spec?.selector?.matchLabels ?? (m.kind === 'Service' ? spec.selector : undefined),
        spec?.podSelector?.matchLabels,
      ].filter((s) => s !== undefined);
    });
    expect(selectors.length).toBeGreaterThanOrEqual(5);
    const podsOfB = [labelsOf(b, 'Deployment'), labelsOf(b, 'Job')];
    for (const selector of selectors) {
      for (const pod of podsOfB)
        expect(Object.entries(selector as Record<string, string>).every(([key, value]) => pod[key] === value)).toBe(
          false,
        );
    }
    const webhooks = a.find((m) => m.kind === 'ValidatingWebhookConfiguration')!['webhooks'] as any[];
    expect(webhooks[0].clientConfig.service).toMatchObject({ namespace: 'shared', name: 'team-a' });
    const deployment = a.find((m) => m.kind === 'Deployment')!['spec'] as any;
    expect(deployment.template.spec.volumes[0].secret.secretName).toBe('team-a-serving-cert');
    const certificate = a.find((m) => m.kind === 'Certificate' && m.metadata.name === 'team-a-serving-cert')![
      'spec'
    ] as any;
    expect(certificate).toMatchObject({
      secretName: 'team-a-serving-cert',
      dnsNames: ['team-a.shared.svc', 'team-a.shared.svc.cluster.local'],
    });
  });
});

describe('renderManifestTree', () => {
  const kustomizationResources = (files: ReturnType<typeof renderManifestTree>, path: string): unknown => {
    const file = files.find((f) => f.path === path);
    return file && 'manifests' in file ? file.manifests[0]!['resources'] : undefined;
  };

  it('lists every file of base/ in its kustomization, and base/ in the top-level one', () => {
    const tree = renderManifestTree([geoDatabaseContract(), clusterWidgetContract()], manifestDefaults);
    const baseFiles = tree
      .map((f) => f.path)
      .filter((path) => path.startsWith('base/') && path !== 'base/kustomization.yaml');
    expect(baseFiles).toHaveLength(6);
    expect(kustomizationResources(tree, 'base/kustomization.yaml')).toEqual(
      baseFiles.map((path) => path.slice('base/'.length)),
    );
    expect(kustomizationResources(tree, 'kustomization.yaml')).toEqual(['base']);
  });

  it('renders the certificate overlays and the monitoring kustomization beside the base, never inside it', () => {
    const paths = renderManifestTree([geoDatabaseContract()], manifestDefaults).map((f) => f.path);
    expect(paths.filter((path) => path.startsWith('overlays/'))).toEqual([
      'overlays/cert-manager/kustomization.yaml',
      'overlays/cert-manager/certificates.yaml',
      'overlays/cert-manager/inject-ca.yaml',
      'overlays/self-managed-certs/kustomization.yaml',
      'overlays/self-managed-certs/secret-and-lease.yaml',
      'overlays/self-managed-certs/rbac.yaml',
      'overlays/self-managed-certs/serve-manage-certs.yaml',
      'overlays/self-managed-certs/egress-to-api-server.yaml',
      'overlays/monitoring/kustomization.yaml',
      'overlays/monitoring/service-monitor.yaml',
      'overlays/monitoring/crdgate-dashboard.json',
      'overlays/policy-floor/kustomization.yaml',
      'overlays/policy-floor/admission-policies.yaml',
      'overlays/policy-floor/ignore-webhook-failures.yaml',
    ]);
    for (const overlay of ['cert-manager', 'self-managed-certs']) {
      expect(
        kustomizationResources(
          renderManifestTree([geoDatabaseContract()], manifestDefaults),
          `overlays/${overlay}/kustomization.yaml`,
        ),
      ).toContain('../../base');
    }
  });

  it('builds the policy floor on what gives the webhooks their caBundle, and renders none without one', () => {
    const overlayBase = (options: Partial<typeof manifestDefaults & { caBundlePem: string; url: string }>) =>
      kustomizationResources(
        renderManifestTree([geoDatabaseContract()], { ...manifestDefaults, ...options }),
        'overlays/policy-floor/kustomization.yaml',
      );
    expect(overlayBase({})).toEqual(['../cert-manager', 'admission-policies.yaml']);
    expect(overlayBase({ caBundlePem: 'PEM' })).toEqual(['../../base', 'admission-policies.yaml']);
    expect(overlayBase({ caBundlePem: 'PEM', url: 'https://10.0.0.5:8443' })).toEqual([
      '../../base',
      'admission-policies.yaml',
    ]);
    expect(overlayBase({ url: 'https://10.0.0.5:8443' })).toBeUndefined();
  });

  it('renders no certificate overlay when the caBundle is given by hand, and only self-managed-certs for a crdgate called by URL without one', () => {
    const overlays = (options: Partial<typeof manifestDefaults & { caBundlePem: string; url: string }>) => [
      ...new Set(
        renderManifestTree([geoDatabaseContract()], { ...manifestDefaults, ...options }).flatMap(
          (f) => /^overlays\/([^/]+)\//.exec(f.path)?.[1] ?? [],
        ),
      ),
    ];
    expect(overlays({ caBundlePem: 'PEM' })).toEqual(['monitoring', 'policy-floor']);
    expect(overlays({ url: 'https://10.0.0.5:8443' })).toEqual(['self-managed-certs']);
    expect(overlays({ url: 'https://10.0.0.5:8443', caBundlePem: 'PEM' })).toEqual(['policy-floor']);
  });
});

describe('webhookEndpointFor', () => {
  it('calls the crdgate Service in the namespace on port 443 by default', () => {
    expect(webhookEndpointFor({ name: 'crdgate', namespace: 'ops', image: 'i', caBundlePem: 'PEM' })).toEqual({
      target: { service: { namespace: 'ops', name: 'crdgate', port: 443 } },
      caBundlePem: 'PEM',
    });
  });

  it('calls the URL when one is given', () => {
    expect(webhookEndpointFor({ name: 'crdgate', namespace: 'ops', image: 'i', url: 'https://10.0.0.5:8443' })).toEqual(
      { target: { url: 'https://10.0.0.5:8443' } },
    );
  });
});
