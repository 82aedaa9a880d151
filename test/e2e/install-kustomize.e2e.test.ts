import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { validGeoDatabase } from './support/geodatabases.ts';
import { kubectl, warningLines } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const manifests = fileURLToPath(new URL('../../manifests/', import.meta.url));
const fixtureCrds = ['cert-manager-minimal.yaml', 'prometheus-operator-minimal.yaml'].map((name) =>
  fileURLToPath(new URL(`../fixtures/crds/${name}`, import.meta.url)),
);
const overlay = (name: string) => join(manifests, 'overlays', name);

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; annotations?: Record<string, string> };
  [field: string]: unknown;
}

const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/**
 * The committed manifests/ installed for real, the way a platform team does it: `kubectl apply -k` of the base,
 * then of the cert-manager overlay and the monitoring kustomization, with strict field validation. No
 * controller-manager or kubelet runs here, so nothing is scheduled: "accepted" means the API server validated and
 * stored every object. Cluster-scoped objects (the CRD, the webhook configurations) are shared with the other e2e
 * files, so everything but the namespace is removed again, webhooks first.
 */
describe.skipIf(!controlPlane)('manifests/ applied with kubectl apply -k to the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  let workDir: string;
  const installed = new Map<string, KubeObject>();

  async function build(dir: string): Promise<KubeObject[]> {
    const built = await kubectl(cp, ['kustomize', dir]);
    expect(built.exitCode, built.stderr).toBe(0);
    return parseAllDocuments(built.stdout).map((doc) => doc.toJS() as KubeObject);
  }

  /** Applies a kustomization and returns, for every object it builds, the object as the API server stored it. */
  async function applyAndRead(dir: string): Promise<Map<string, KubeObject>> {
    // Recorded for removal before applying: a failed apply may still have stored some of them.
    for (const object of await build(dir)) installed.set(key(object), object);
    const applied = await kubectl(cp, ['apply', '--server-side', '--validate=strict', '-k', dir]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(warningLines(applied)).toEqual([]);
    const read = await kubectl(cp, ['get', '-k', dir, '-o', 'json']);
    expect(read.exitCode, read.stderr).toBe(0);
    const stored = (JSON.parse(read.stdout) as { items: KubeObject[] }).items;
    return new Map(stored.map((object) => [key(object), object]));
  }

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-kustomize-'));
    const existing = await kubectl(cp, ['get', 'namespace', 'crdgate-system', '-o', 'jsonpath={.status.phase}']);
    if (existing.stdout === 'Terminating')
      throw new Error(
        'namespace crdgate-system is Terminating (another e2e file deleted it; no controller-manager runs to finish that)',
      );
    const crds = await kubectl(cp, ['apply', '--server-side', ...fixtureCrds.flatMap((file) => ['-f', file])]);
    expect(crds.exitCode, crds.stderr).toBe(0);
    const established = await kubectl(cp, [
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd/issuers.cert-manager.io',
      'crd/certificates.cert-manager.io',
      'crd/servicemonitors.monitoring.coreos.com',
    ]);
    expect(established.exitCode, established.stderr).toBe(0);
  });

  afterAll(async () => {
    if (!controlPlane) return;
    // Webhooks first, so that no later write of a GeoDatabase is sent to a crdgate that is not running; the
    // namespace stays: deleting it would leave it Terminating for good here, in the way of other files.
    const order = (o: KubeObject) =>
      o.kind.endsWith('WebhookConfiguration') ? 0 : o.kind === 'CustomResourceDefinition' ? 1 : 2;
    const leftovers = [...installed.values()].filter((o) => o.kind !== 'Namespace').sort((a, b) => order(a) - order(b));
    if (leftovers.length > 0) {
      const file = join(workDir, 'leftovers.yaml');
      await writeFile(file, leftovers.map((o) => stringify(o)).join('---\n'));
      await kubectl(cp, ['delete', '--ignore-not-found', '--wait=true', '--timeout=60s', '-f', file]);
    }
    await kubectl(cp, [
      'delete',
      '--ignore-not-found',
      '--wait=true',
      '--timeout=60s',
      ...fixtureCrds.flatMap((file) => ['-f', file]),
    ]);
    await rm(workDir, { recursive: true, force: true });
  });

  it('installs the base: every object it builds is stored, and the webhooks fail closed while crdgate is not running', async () => {
    const built = await build(manifests);
    expect(built.map((o) => o.kind).sort()).toEqual(
      [
        'CustomResourceDefinition',
        'Deployment',
        'MutatingWebhookConfiguration',
        'Namespace',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'Service',
        'ServiceAccount',
        'ValidatingWebhookConfiguration',
      ].sort(),
    );
    const stored = await applyAndRead(manifests);
    for (const object of built) expect(stored.get(key(object))?.metadata.uid, key(object)).toBeTruthy();

    // No pod serves the Service here: with failurePolicy Fail the API server refuses the write rather than let it
    // through unchecked. This is what users see when the webhook is down (the runbook quotes it).
    await kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', 'crd/geodatabases.geo.example.com']);
    const object = join(workDir, 'geodatabase.yaml');
    await writeFile(object, stringify(validGeoDatabase('default', 'while-down')));
    const refused = await eventually('the API server to call the (absent) webhook', async () => {
      const attempt = await kubectl(cp, ['create', '--dry-run=server', '-f', object]);
      return attempt.exitCode !== 0 && attempt.stderr.includes('failed calling webhook') ? attempt : undefined;
    });
    expect(refused.stderr).toMatch(
      /Internal error occurred: failed calling webhook "(mutate|validate)\.geodatabases\.geo\.example\.com"/,
    );
  });

  it('installs the cert-manager overlay: issuers and certificates stored, the CA injected by annotation, no caBundle by hand', async () => {
    const stored = await applyAndRead(overlay('cert-manager'));
    const built = await build(overlay('cert-manager'));
    for (const object of built) expect(stored.get(key(object))?.metadata.uid, key(object)).toBeTruthy();
    expect(
      built
        .filter((o) => o.apiVersion === 'cert-manager.io/v1')
        .map(key)
        .sort(),
    ).toEqual([
      'Certificate/crdgate-system/crdgate-ca',
      'Certificate/crdgate-system/crdgate-serving-cert',
      'Issuer/crdgate-system/crdgate-ca',
      'Issuer/crdgate-system/crdgate-selfsigned',
    ]);
    const serving = stored.get('Certificate/crdgate-system/crdgate-serving-cert') as any;
    expect(serving.spec.dnsNames).toEqual(['crdgate.crdgate-system.svc', 'crdgate.crdgate-system.svc.cluster.local']);
    const deployment = stored.get('Deployment/crdgate-system/crdgate') as any;
    expect(deployment.spec.template.spec.volumes.map((v: any) => v.secret?.secretName)).toContain(
      serving.spec.secretName,
    );

    const injected = [
      'ValidatingWebhookConfiguration//crdgate',
      'MutatingWebhookConfiguration//crdgate',
      'CustomResourceDefinition//geodatabases.geo.example.com',
    ];
    for (const name of injected) {
      expect(stored.get(name)?.metadata.annotations?.['cert-manager.io/inject-ca-from'], name).toBe(
        'crdgate-system/crdgate-serving-cert',
      );
    }
    const clientConfigs = [
      ...['ValidatingWebhookConfiguration//crdgate', 'MutatingWebhookConfiguration//crdgate'].flatMap((name) =>
        (stored.get(name) as any).webhooks.map((w: any) => w.clientConfig),
      ),
      (stored.get('CustomResourceDefinition//geodatabases.geo.example.com') as any).spec.conversion.webhook
        .clientConfig,
    ];
    // The resource's and its status writes' validating webhooks, the mutating one, the conversion.
    expect(clientConfigs).toHaveLength(4);
    for (const config of clientConfigs) expect(config).not.toHaveProperty('caBundle');
  });

  it('installs the monitoring kustomization: the ServiceMonitor, and the committed dashboard in its ConfigMap', async () => {
    const stored = await applyAndRead(overlay('monitoring'));
    expect([...stored.keys()].sort()).toEqual([
      'ConfigMap/crdgate-system/crdgate-dashboard',
      'ServiceMonitor/crdgate-system/crdgate',
    ]);
    const configMap = stored.get('ConfigMap/crdgate-system/crdgate-dashboard') as any;
    expect(configMap.metadata.labels.grafana_dashboard).toBe('1');
    expect(configMap.data['crdgate-dashboard.json']).toBe(
      await readFile(join(overlay('monitoring'), 'crdgate-dashboard.json'), 'utf8'),
    );
    const monitor = stored.get('ServiceMonitor/crdgate-system/crdgate') as any;
    const service = installed.get('Service/crdgate-system/crdgate') as any;
    expect(monitor.spec.selector.matchLabels).toEqual(service.metadata.labels);
    expect(service.spec.ports.map((p: any) => p.name)).toContain(monitor.spec.endpoints[0].port);
  });
});
