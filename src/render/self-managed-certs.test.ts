import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { serveCommand } from '../commands/serve/serve.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import { manifestDefaults, type ManifestOptions } from './manifest-options.ts';
import { renderNetworkPolicyFile } from './network-policy.ts';
import { apiServerPorts, outsideServeArgs, renderSelfManagedCertsOverlay } from './self-managed-certs.ts';
import { renderServerWorkload } from './server-workload.ts';

const dir = 'overlays/self-managed-certs';
const contracts = [geoDatabaseContract(), clusterWidgetContract()];
const inside: ManifestOptions = { ...manifestDefaults, name: 'geo', namespace: 'ops', contracts: ['contracts/geo.ts'] };
const outside: ManifestOptions = { ...manifestDefaults, name: 'geo', namespace: 'ops', url: 'https://127.0.0.1:9443' };

const render = (options: ManifestOptions) => renderSelfManagedCertsOverlay(dir, contracts, options);
const file = (files: ManifestFile[], name: string): ManifestFile | undefined =>
  files.find((f) => f.path === `${dir}/${name}`);
const manifestsOf = (files: ManifestFile[], name: string): Manifest[] => file(files, name)?.manifests ?? [];
const kustomization = (files: ManifestFile[]): any => manifestsOf(files, 'kustomization.yaml')[0];
const all = (files: ManifestFile[]) => files.flatMap((f) => f.manifests);
const find = (manifests: Manifest[], kind: string): any => manifests.find((m) => m.kind === kind);

// The objects the patches must find in the base, by the keys a strategic merge matches on.
const base = renderServerWorkload(inside, inside.image, inside.contracts);
const baseDeployment = find(base, 'Deployment');
const basePod = baseDeployment.spec.template.spec;
const basePolicy = renderNetworkPolicyFile('base/15-network-policy.yaml', inside).manifests[0]!;

describe('renderSelfManagedCertsOverlay inside the cluster', () => {
  const files = render(inside);
  const rbac = manifestsOf(files, 'rbac.yaml');

  it('builds on the base, adds the Secret, the Lease and the RBAC, and patches the Deployment and the NetworkPolicy', () => {
    expect(kustomization(files)).toMatchObject({
      resources: ['../../base', 'secret-and-lease.yaml', 'rbac.yaml'],
      patches: [{ path: 'serve-manage-certs.yaml' }, { path: 'egress-to-api-server.yaml' }],
    });
    const listed = [
      ...kustomization(files).resources.slice(1),
      ...kustomization(files).patches.map((p: { path: string }) => p.path),
    ];
    expect(files.map((f) => f.path.slice(dir.length + 1)).sort()).toEqual(['kustomization.yaml', ...listed].sort());
    for (const f of files) expect(f.comment, f.path).toBeTruthy();
  });

  it('ships the Secret the Deployment names and the Lease empty, so that crdgate fills them without a create verb', () => {
    const [secret, lease] = manifestsOf(files, 'secret-and-lease.yaml');
    expect(secret).toMatchObject({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: 'geo-serving-cert', namespace: 'ops' },
    });
    expect(basePod.volumes[0].secret.secretName).toBe(secret!.metadata.name);
    expect(Object.keys(secret!).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'type']);
    expect(lease).toEqual(expect.objectContaining({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: {} }));
    expect(lease!.metadata).toMatchObject({ name: 'geo-certs', namespace: 'ops' });
  });

  it("binds a Role in the namespace and a ClusterRole to the Deployment's ServiceAccount", () => {
    const serviceAccount = find(base, 'ServiceAccount').metadata;
    expect(basePod.serviceAccountName).toBe(serviceAccount.name);
    for (const [binding, role] of [
      ['RoleBinding', 'Role'],
      ['ClusterRoleBinding', 'ClusterRole'],
    ] as const) {
      expect(find(rbac, binding).subjects).toEqual([
        { kind: 'ServiceAccount', name: serviceAccount.name, namespace: serviceAccount.namespace },
      ]);
      expect(find(rbac, binding).roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: role,
        name: find(rbac, role).metadata.name,
      });
    }
    expect(find(rbac, 'Role').metadata.namespace).toBe('ops');
    expect(find(rbac, 'RoleBinding').metadata.namespace).toBe('ops');
  });

  it('allows reading, following and updating the Secret and the Lease by name, and nothing else in the namespace', () => {
    expect(find(rbac, 'Role').rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['geo-serving-cert'],
        verbs: ['get', 'list', 'watch', 'update'],
      },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['geo-certs'],
        verbs: ['get', 'list', 'watch', 'update'],
      },
    ]);
  });

  it("allows patching the install's webhook configurations, and only the CRDs that convert by webhook", () => {
    expect(find(rbac, 'ClusterRole').rules).toEqual([
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
        resourceNames: ['geo'],
        verbs: ['get', 'list', 'watch', 'patch'],
      },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['geodatabases.geo.example.com', 'widgets.widgets.example.org'],
        verbs: ['get', 'list', 'watch'],
      },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['geodatabases.geo.example.com'],
        verbs: ['patch'],
      },
    ]);
  });

  it('never renders a rule without resourceNames, which RBAC would read as every object', () => {
    const single = renderSelfManagedCertsOverlay(dir, [clusterWidgetContract()], inside);
    const rules = manifestsOf(single, 'rbac.yaml').flatMap((m) => (m['rules'] as any[] | undefined) ?? []);
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) expect(rule.resourceNames.length, JSON.stringify(rule)).toBeGreaterThan(0);
    expect(rules.filter((rule) => rule.verbs.includes('patch')).flatMap((rule) => rule.resources)).toEqual([
      'validatingwebhookconfigurations',
      'mutatingwebhookconfigurations',
    ]);
    const verbs = new Set(
      all(files).flatMap((m) => ((m['rules'] as any[] | undefined) ?? []).flatMap((rule) => rule.verbs)),
    );
    expect([...verbs].sort()).toEqual(['get', 'list', 'patch', 'update', 'watch']);
  });

  it("switches the base's container to --manage-certs, keeping its other arguments, with the pod's name and namespace", () => {
    const patch = find(manifestsOf(files, 'serve-manage-certs.yaml'), 'Deployment');
    expect(patch.metadata).toEqual({
      name: baseDeployment.metadata.name,
      namespace: baseDeployment.metadata.namespace,
    });
    const [container] = patch.spec.template.spec.containers;
    const [baseContainer] = basePod.containers;
    expect(container.name).toBe(baseContainer.name);
    expect(baseContainer.args).toEqual(['serve', '--cert-dir', '/etc/crdgate/certs', '--contract', 'contracts/geo.ts']);
    expect(container.args).toEqual([
      'serve',
      '--manage-certs',
      '--name',
      'geo',
      '--namespace',
      'ops',
      '--contract',
      'contracts/geo.ts',
    ]);
    expect(container.env).toEqual([
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ]);
    expect(baseContainer.env.map((e: { name: string }) => e.name)).not.toContain('POD_NAME');
  });

  it('takes the API token the base withholds, and removes the Secret volume by the keys a strategic merge matches', () => {
    expect(basePod.automountServiceAccountToken).toBe(false);
    const pod = find(manifestsOf(files, 'serve-manage-certs.yaml'), 'Deployment').spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(true);
    // volumeMounts merge on mountPath, volumes on name.
    expect(pod.containers[0].volumeMounts).toEqual([
      { mountPath: basePod.containers[0].volumeMounts[0].mountPath, $patch: 'delete' },
    ]);
    expect(pod.volumes).toEqual([{ name: basePod.volumes[0].name, $patch: 'delete' }]);
    expect(basePod.containers[0].volumeMounts).toHaveLength(1);
    expect(basePod.volumes).toHaveLength(1);
  });

  it("gives the base's NetworkPolicy egress to the API server's ports at any address, and nothing else", () => {
    const patch = find(manifestsOf(files, 'egress-to-api-server.yaml'), 'NetworkPolicy');
    expect(patch.metadata).toEqual({ name: basePolicy.metadata.name, namespace: basePolicy.metadata.namespace });
    expect((basePolicy['spec'] as any).egress).toEqual([]);
    expect(apiServerPorts).toEqual([443, 6443]);
    expect(patch.spec).toEqual({
      egress: [
        {
          ports: [
            { port: 443, protocol: 'TCP' },
            { port: 6443, protocol: 'TCP' },
          ],
        },
      ],
    });
  });

  it('runs crdgate serve with flags that serve takes', () => {
    const [container] = find(manifestsOf(files, 'serve-manage-certs.yaml'), 'Deployment').spec.template.spec.containers;
    const [command, ...args] = container.args as string[];
    expect(command).toBe(serveCommand.name);
    const { values } = parseArgs({ args, options: serveCommand.options as any, strict: true, allowPositionals: false });
    expect(values).toMatchObject({
      'manage-certs': true,
      name: 'geo',
      namespace: 'ops',
      contract: ['contracts/geo.ts'],
    });
  });
});

describe('renderSelfManagedCertsOverlay called by URL', () => {
  const files = render(outside);

  it('brings the namespace and the ServiceAccount the base leaves out, and patches nothing', () => {
    expect(kustomization(files).resources).toEqual([
      '../../base',
      'outside-the-cluster.yaml',
      'secret-and-lease.yaml',
      'rbac.yaml',
    ]);
    expect(kustomization(files)).not.toHaveProperty('patches');
    expect(
      manifestsOf(files, 'outside-the-cluster.yaml').map(
        (m) => `${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`,
      ),
    ).toEqual(['Namespace//ops', 'ServiceAccount/ops/geo']);
    expect(files.map((f) => f.path)).not.toContain(`${dir}/serve-manage-certs.yaml`);
    expect(find(manifestsOf(files, 'rbac.yaml'), 'RoleBinding').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'geo', namespace: 'ops' },
    ]);
  });

  it('says how to run crdgate for the URL, with flags that serve takes', () => {
    expect(file(files, 'kustomization.yaml')!.comment).toContain(
      'crdgate serve --manage-certs --name geo --namespace ops --cert-ip 127.0.0.1 --port 9443',
    );
    const { values } = parseArgs({
      args: outsideServeArgs(outside, outside.url!).slice(1),
      options: serveCommand.options as any,
      strict: true,
      allowPositionals: false,
    });
    expect(values).toMatchObject({ 'manage-certs': true, 'cert-ip': '127.0.0.1', port: '9443' });
  });
});

describe('outsideServeArgs', () => {
  const install = { name: 'geo', namespace: 'ops' };
  it.each([
    ['https://127.0.0.1:9443', ['--cert-ip', '127.0.0.1', '--port', '9443']],
    ['https://[::1]:9443', ['--cert-ip', '::1', '--port', '9443']],
    ['https://gate.example.com', ['--cert-dns', 'gate.example.com', '--port', '443']],
  ])('names the host of %s in the certificate and listens on its port', (url, tail) => {
    expect(outsideServeArgs(install, url)).toEqual([
      'serve',
      '--manage-certs',
      '--name',
      'geo',
      '--namespace',
      'ops',
      ...tail,
    ]);
  });
});
