import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/render/manifest.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { refusal } from './support/api-error.ts';
import {
  createCrdgateProcess,
  removeCrdgateProcess,
  type CrdgateProcess,
} from './support/crdgate-restartable-process.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  crdgateRegistration,
  removeCrdgate,
  type CrdgateRegistration,
} from './support/crdgate-webhooks.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { geoDatabases, validGeoDatabase } from './support/geodatabases.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// Short, so that a frozen crdgate costs the test seconds; the rendered manifests use 10.
const timeoutSeconds = 4;
const webhookError = 'failed calling webhook';

interface Write {
  kind: 'GeoDatabase' | 'ConfigMap';
  name: string;
  startedAt: number;
  endedAt: number;
  error?: string;
}

/** Two loops of creates (GeoDatabases, which crdgate guards, and ConfigMaps, which it does not), side by side. */
function streamWrites(customObjects: CustomObjectsApi, core: CoreV1Api, namespace: string, prefix: string) {
  const writes: Write[] = [];
  let running = true;
  async function loop(kind: Write['kind'], create: (name: string) => Promise<unknown>): Promise<void> {
    for (let n = 0; running; n++) {
      const name = `${prefix}-${kind.toLowerCase()}-${n}`;
      const startedAt = Date.now();
      const outcome = await refusal(create(name)).catch(() => undefined);
      writes.push({ kind, name, startedAt, endedAt: Date.now(), ...(outcome ? { error: outcome.message } : {}) });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const loops = Promise.all([
    loop('GeoDatabase', (name) =>
      customObjects.createNamespacedCustomObject({
        ...geoDatabases,
        namespace,
        body: validGeoDatabase(namespace, name),
      }),
    ),
    loop('ConfigMap', (name) =>
      core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { at: String(Date.now()) } } }),
    ),
  ]);
  return {
    writes,
    async stop(): Promise<Write[]> {
      running = false;
      await loops;
      return writes;
    },
  };
}

const between = (writes: Write[], kind: Write['kind'], from: number, to: number) =>
  writes.filter((write) => write.kind === kind && write.startedAt >= from && write.endedAt <= to);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!controlPlane)('chaos: crdgate stopped, frozen and re-certified under the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const namespace = `crdgate-e2e-chaos-${randomUUID().slice(0, 8)}`;
  let kubeConfig: KubeConfig;
  let core: CoreV1Api;
  let customObjects: CustomObjectsApi;
  let gate: CrdgateProcess;
  let registration: CrdgateRegistration;

  beforeAll(async () => {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    core = kubeConfig.makeApiClient(CoreV1Api);
    customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    gate = await createCrdgateProcess();
    await gate.start();
    const rendered = crdgateRegistration(gate.port, gate.ca);
    registration = { ...rendered, webhookConfigurations: rendered.webhookConfigurations.map(withTimeout) };
    await applyCrd(kubeConfig, registration.crd);
    await applyWebhookConfigurations(kubeConfig, registration, namespace);
  });
  afterAll(async () => {
    if (registration)
      await removeCrdgate(kubeConfig, { ...registration, server: { stop: () => removeCrdgateProcess(gate) } });
  });

  it('renews the serving certificate while the API server streams writes: none fails', async () => {
    const stream = streamWrites(customObjects, core, namespace, 'renew');
    await pause(1_000);
    const before = await gate.servingSerial();
    await gate.renewCertificate();
    await eventually('crdgate to serve the renewed certificate', async () =>
      (await gate.servingSerial()) !== before ? true : undefined,
    );
    await pause(1_500);
    const writes = await stream.stop();
    expect(writes.filter((write) => write.kind === 'GeoDatabase').length).toBeGreaterThan(5);
    expect(writes.filter((write) => write.error !== undefined)).toEqual([]);
  });

  it('stopped: GeoDatabase writes are refused with the webhook error, other writes go on; started again: writes succeed', async () => {
    const stream = streamWrites(customObjects, core, namespace, 'outage');
    await pause(1_000);
    const stopping = Date.now();
    await gate.stop();
    const stopped = Date.now();
    await pause(3_000);
    const restarting = Date.now();
    // The same port and certificate folder; the renewed certificate from the test above, so the API server's new
    // connections also prove it accepts that one.
    await gate.start();
    const restarted = Date.now();
    await pause(2_000);
    const writes = await stream.stop();

    const refused = between(writes, 'GeoDatabase', stopped, restarting);
    expect(refused.length).toBeGreaterThan(3);
    for (const write of refused) expect(write.error, write.name).toContain(webhookError);
    expect(writes.filter((write) => write.kind === 'ConfigMap' && write.error !== undefined)).toEqual([]);
    expect(between(writes, 'ConfigMap', stopped, restarting).length).toBeGreaterThan(3);
    expect(between(writes, 'GeoDatabase', 0, stopping).every((write) => write.error === undefined)).toBe(true);
    const afterRestart = between(writes, 'GeoDatabase', restarted, Number.POSITIVE_INFINITY);
    expect(afterRestart.length).toBeGreaterThan(3);
    expect(afterRestart.filter((write) => write.error !== undefined)).toEqual([]);

    // Nothing else touched: exactly the GeoDatabases whose creates succeeded exist.
    const listed = (await customObjects.listNamespacedCustomObject({ ...geoDatabases, namespace })) as {
      items: Array<{ metadata: { name: string } }>;
    };
    const stored = listed.items.map((item) => item.metadata.name).filter((name) => name.startsWith('outage-'));
    const succeeded = writes
      .filter((write) => write.kind === 'GeoDatabase' && write.error === undefined)
      .map((write) => write.name);
    expect(stored.sort()).toEqual(succeeded.sort());
  });

  it(`frozen (SIGSTOP) past timeoutSeconds: writes fail within the ${timeoutSeconds} s timeout, not later; resumed: writes succeed`, async () => {
    gate.freeze();
    try {
      const startedAt = Date.now();
      const status = await refusal(
        customObjects.createNamespacedCustomObject({
          ...geoDatabases,
          namespace,
          body: validGeoDatabase(namespace, 'frozen-1'),
        }),
      );
      const elapsedMs = Date.now() - startedAt;
      expect(status.message).toContain(webhookError);
      expect(elapsedMs).toBeGreaterThanOrEqual(timeoutSeconds * 1000 - 500);
      expect(elapsedMs).toBeLessThan(timeoutSeconds * 1000 + 2_000);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'frozen-configmap' } } });
    } finally {
      gate.resume();
    }
    await customObjects.createNamespacedCustomObject({
      ...geoDatabases,
      namespace,
      body: validGeoDatabase(namespace, 'resumed-1'),
    });
    expect(
      await refusal(customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name: 'frozen-1' })),
    ).toMatchObject({ code: 404 });
  });
});

function withTimeout(configuration: Manifest): Manifest {
  const webhooks = (configuration as Manifest & { webhooks: object[] }).webhooks;
  return { ...configuration, webhooks: webhooks.map((webhook) => ({ ...webhook, timeoutSeconds })) } as Manifest;
}
