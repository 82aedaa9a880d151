import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.ts';
import type { ProvidedControlPlane } from './provided-context.ts';
import { applyCrd, applyWebhookConfigurations, removeCrdgate, startCrdgateForApiServer, type CrdgateInFront } from './support/crdgate-webhooks.ts';
import {
  applyCrdVersions,
  createGeoDatabases,
  readContents,
  runMigrate,
  storedApiVersion,
  storedGeoDatabases,
  storedVersions,
} from './support/storage-migration.ts';

const provided = inject('controlPlane');
const controlPlane = 'unavailable' in provided ? undefined : provided;

// A control plane of its own: stopping the shared kube-apiserver would break every other e2e file.
describe.skipIf(!controlPlane)('crdgate migrate while kube-apiserver restarts', () => {
  const assetsDir = (controlPlane as ProvidedControlPlane).assetsDir;
  let plane: ControlPlane;
  let gate: CrdgateInFront;
  let kubeConfig: KubeConfig;
  const namespace = 'restart';

  beforeAll(async () => {
    plane = await startControlPlane({ assetsDir });
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    gate = await startCrdgateForApiServer();
    await applyCrd(kubeConfig, gate.crd);
    await applyWebhookConfigurations(kubeConfig, gate, namespace);
  }, 180_000);
  afterAll(async () => {
    if (gate) await removeCrdgate(kubeConfig, gate).catch(() => gate.server.stop());
    await plane?.stop();
  });

  it('rides out the outage with retries and loses nothing', async () => {
    await applyCrdVersions(kubeConfig, plane.etcdUrl, gate.crd, { storage: 'v1beta1' }, namespace);
    await createGeoDatabases(kubeConfig, [namespace], 120);
    await applyCrdVersions(kubeConfig, plane.etcdUrl, gate.crd, { storage: 'v1' }, namespace);
    const before = await readContents(kubeConfig, [namespace]);

    let reached!: () => void;
    const thirtyDone = new Promise<void>((resolve) => (reached = resolve));
    const run = runMigrate(['--kubeconfig', plane.kubeconfigPath, '--qps', '10', '--concurrency', '2', '--retries', '12'], {
      onStderr: (text) => {
        const done = /progress: (\d+)/.exec(text);
        if (done && Number(done[1]) >= 30) reached();
      },
    });
    await Promise.race([thirtyDone, run]);
    await plane.stopApiServer();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await plane.startApiServer();
    const result = await run;

    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^retrying rewrite restart\/db-\d+ in [\d.]+ s: /m);
    expect(result.stdout).toMatch(/objects +120 seen: \d+ rewritten, \d+ already current, 0 gone, 0 failed/);
    expect(await storedVersions(kubeConfig)).toEqual(['v1']);
    const stored = await storedGeoDatabases(plane.etcdUrl, [namespace]);
    expect(stored).toHaveLength(120);
    expect(new Set(stored.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1']));
    expect(await readContents(kubeConfig, [namespace])).toEqual(before);
  }, 300_000);
});
