import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createCertificateAuthority } from '../../src/certs/pki.ts';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { builtHelm } from '../tools/suite-tools.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { helm, yamlObjects, type KubeObject } from './support/helm.ts';
import { kubectl, waitEstablished } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const group = 'gadgets.helm.example';
const crdName = `gadgets.${group}`;

/**
 * The rendered chart installed with the real helm into the suite's kube-apiserver, upgraded with changed values and
 * a contract with a new version, and uninstalled; what exists is read from the API server after each step. No
 * kubelet runs here, so crdgate's pods never start: the webhooks are installed with failurePolicy Ignore, so that
 * the test can write Gadgets past a crdgate that never answers (the kustomize and admission tests prove the
 * webhooks themselves). The CRD is kept on uninstall, and the Gadgets with it; afterAll removes them.
 */
describe.skipIf(!controlPlane)('helm install, upgrade and uninstall of the rendered chart', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const runId = randomUUID().slice(0, 8);
  const release = `hg-${runId}`;
  const namespace = `helm-${runId}`;
  let helmPath: string;
  let workDir: string;
  let chartV1: string;
  let chartV2: string;
  const installedClusterScoped = new Set<string>();

  const helmRun = (args: string[]) => helm(helmPath, join(workDir, 'helm-home'), cp, args);
  const exists = async (kind: string, name: string, inNamespace?: string) => {
    const got = await kubectl(cp, ['get', kind, name, ...(inNamespace ? ['-n', inNamespace] : []), '-o', 'name']);
    return got.exitCode === 0;
  };
  const getJson = async <T>(args: string[]): Promise<T> => {
    const got = await kubectl(cp, ['get', ...args, '-o', 'json']);
    expect(got.exitCode, got.stderr).toBe(0);
    return JSON.parse(got.stdout) as T;
  };
  /** The release's objects as helm recorded them, each read back from the API server. */
  async function releaseObjects(): Promise<KubeObject[]> {
    const manifest = await helmRun(['get', 'manifest', release, '-n', namespace]);
    expect(manifest.exitCode, manifest.stderr).toBe(0);
    const objects = yamlObjects(manifest.stdout);
    for (const object of objects)
      if (object.metadata.namespace === undefined) installedClusterScoped.add(`${object.kind}/${object.metadata.name}`);
    return objects;
  }
  async function valuesFile(name: string, values: Record<string, unknown>): Promise<string> {
    const path = join(workDir, `${name}.yaml`);
    await writeFile(path, stringify(values));
    return path;
  }

  beforeAll(async () => {
    helmPath = await builtHelm();
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-helm-install-'));
    chartV1 = join(workDir, 'chart-v1');
    chartV2 = join(workDir, 'chart-v2');
    const render = async (contract: string, out: string) => {
      const rendered = await runCli(
        repoRoot,
        'manifests',
        '--format',
        'helm',
        '--name',
        release,
        '--image',
        'crdgate-e2e:helm',
        '--contract',
        `test/e2e/support/contracts/${contract}`,
        '--out',
        out,
      );
      expect(rendered.code, rendered.stderr).toBe(0);
    };
    await render('helm-gadget.ts', chartV1);
    await render('helm-gadget-two-versions.ts', chartV2);
    expect(await exists('crd', crdName), `${crdName} is left over from an earlier run`).toBe(false);
  }, 1_200_000);

  afterAll(async () => {
    if (!controlPlane || workDir === undefined) return;
    await helmRun(['uninstall', release, '-n', namespace, '--ignore-not-found']);
    // Webhooks first, so that nothing is sent to a crdgate that never ran; then the kept CRD, and with it the Gadgets.
    const order = (key: string) =>
      key.includes('WebhookConfiguration/') ? 0 : key.startsWith('CustomResourceDefinition/') ? 2 : 1;
    for (const key of [...installedClusterScoped, `CustomResourceDefinition/${crdName}`].sort(
      (a, b) => order(a) - order(b),
    )) {
      await kubectl(cp, [
        'delete',
        key.replace('/', ' ').split(' ')[0]!.toLowerCase(),
        key.split('/')[1]!,
        '--ignore-not-found',
        '--wait=true',
        '--timeout=60s',
      ]);
    }
    await rm(workDir, { recursive: true, force: true });
  });

  it('installs the chart: every object helm recorded is in the API server, with the values given', async () => {
    const values = await valuesFile('install', { webhooks: { failurePolicy: 'Ignore' } });
    const installed = await helmRun([
      'install',
      release,
      chartV1,
      '--namespace',
      namespace,
      '--create-namespace',
      '-f',
      values,
    ]);
    expect(installed.exitCode, installed.stderr).toBe(0);
    // NOTES.txt, printed by helm after the install, says how to check it.
    expect(installed.stdout).toContain(`rollout status deployment/${release}`);
    const objects = await releaseObjects();
    const kinds = objects.map((object) => object.kind);
    for (const kind of [
      'ServiceAccount',
      'Service',
      'Deployment',
      'PodDisruptionBudget',
      'NetworkPolicy',
      'CustomResourceDefinition',
      'ValidatingWebhookConfiguration',
      'Secret',
      'Lease',
    ])
      expect(kinds).toContain(kind);
    // certificates.mode self-managed, the default: the caBundles are crdgate's to write, none is rendered.
    const rendered = await getJson<{ webhooks: Array<{ clientConfig: { caBundle?: string } }> }>([
      'validatingwebhookconfiguration',
      release,
    ]);
    expect(rendered.webhooks.map((webhook) => webhook.clientConfig.caBundle)).toEqual(
      rendered.webhooks.map(() => undefined),
    );
    for (const object of objects)
      expect(
        await exists(object.kind, object.metadata.name, object.metadata.namespace),
        `${object.kind}/${object.metadata.name}`,
      ).toBe(true);
    expect((await waitEstablished(cp, crdName)).exitCode).toBe(0);
    const webhooks = await getJson<{ webhooks: Array<{ failurePolicy: string }> }>([
      'validatingwebhookconfiguration',
      release,
    ]);
    expect(webhooks.webhooks.map((webhook) => webhook.failurePolicy)).toContain('Ignore');
    const crd = await getJson<{ spec: { versions: Array<{ name: string }> } }>(['crd', crdName]);
    expect(crd.spec.versions.map((version) => version.name)).toEqual(['v1']);
    const gadget = await valuesFile('gadget', {
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { name: 'kept', namespace },
      spec: { size: 3 },
    });
    const created = await kubectl(cp, ['create', '-f', gadget]);
    expect(created.exitCode, created.stderr).toBe(0);
  });

  it('upgrades to changed values and a contract with a new version: the CRD and the objects change, the Gadget stays', async () => {
    // What crdgate serve --manage-certs does once running: the caBundles written under its own field manager.
    const ownCa = Buffer.from('a CA crdgate made').toString('base64');
    const patched = await kubectl(cp, [
      'patch',
      'validatingwebhookconfiguration',
      release,
      '--type=json',
      '--field-manager=crdgate',
      '-p',
      JSON.stringify([{ op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: ownCa }]),
    ]);
    expect(patched.exitCode, patched.stderr).toBe(0);
    const caPem = createCertificateAuthority({ commonName: 'helm-install-test-ca', days: 1 }).certPem;
    const values = await valuesFile('upgrade', {
      replicas: 3,
      webhooks: { failurePolicy: 'Ignore', timeoutSeconds: 7 },
      networkPolicy: { enabled: false },
      podLabels: { team: 'platform' },
      certificates: { mode: 'secret', caBundle: caPem },
    });
    // Moving from self-managed certificates to a CA of one's own takes the caBundles from crdgate's field manager,
    // which server-side apply refuses unless told to (docs/operations.md, With Helm).
    const refused = await helmRun(['upgrade', release, chartV2, '--namespace', namespace, '-f', values]);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toMatch(/conflict/i);
    const upgraded = await helmRun([
      'upgrade',
      release,
      chartV2,
      '--namespace',
      namespace,
      '-f',
      values,
      '--force-conflicts',
    ]);
    expect(upgraded.exitCode, upgraded.stderr).toBe(0);
    const kinds = (await releaseObjects()).map((object) => object.kind);
    expect(kinds).not.toContain('Lease');
    expect(await exists('lease', `${release}-certs`, namespace)).toBe(false);
    const caBundles = await getJson<{ webhooks: Array<{ clientConfig: { caBundle?: string } }> }>([
      'validatingwebhookconfiguration',
      release,
    ]);
    expect(caBundles.webhooks.map((webhook) => webhook.clientConfig.caBundle)).toEqual(
      caBundles.webhooks.map(() => Buffer.from(caPem).toString('base64')),
    );
    const crd = await getJson<{
      spec: { versions: Array<{ name: string; storage: boolean }>; conversion: { strategy: string } };
    }>(['crd', crdName]);
    expect(crd.spec.versions.map((version) => version.name).sort()).toEqual(['v1', 'v2']);
    expect(crd.spec.conversion.strategy).toBe('Webhook');
    const deployment = await getJson<{
      spec: { replicas: number; template: { metadata: { labels: Record<string, string> } } };
    }>(['deployment', release, '-n', namespace]);
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.metadata.labels['team']).toBe('platform');
    const webhooks = await getJson<{ webhooks: Array<{ failurePolicy: string; timeoutSeconds: number }> }>([
      'validatingwebhookconfiguration',
      release,
    ]);
    expect(
      webhooks.webhooks.filter((webhook) => webhook.failurePolicy === 'Ignore' && webhook.timeoutSeconds === 7).length,
    ).toBeGreaterThan(0);
    expect(await exists('networkpolicy', release, namespace)).toBe(false);
    const gadget = await getJson<{ spec: { size: number } }>([`gadgets.v1.${group}`, 'kept', '-n', namespace]);
    expect(gadget.spec.size).toBe(3);
    const history = await helmRun(['history', release, '-n', namespace, '-o', 'json']);
    expect(
      (JSON.parse(history.stdout) as Array<{ revision: number; status: string }>).map((entry) => entry.status).at(-1),
    ).toBe('deployed');
  });

  it("uninstalls: crdgate's objects are gone, the CRD and the Gadget stay", async () => {
    const before = await releaseObjects();
    const uninstalled = await helmRun(['uninstall', release, '--namespace', namespace, '--wait']);
    expect(uninstalled.exitCode, uninstalled.stderr).toBe(0);
    for (const object of before.filter((each) => each.kind !== 'CustomResourceDefinition')) {
      expect(
        await exists(object.kind, object.metadata.name, object.metadata.namespace),
        `${object.kind}/${object.metadata.name} is still there`,
      ).toBe(false);
    }
    expect(await exists('crd', crdName)).toBe(true);
    const gadget = await getJson<{ spec: { size: number } }>([`gadgets.v1.${group}`, 'kept', '-n', namespace]);
    expect(gadget.spec.size).toBe(3);
    expect((await helmRun(['status', release, '-n', namespace])).exitCode).not.toBe(0);
  });
});
