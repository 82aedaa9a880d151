import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEtcdBytes, readEtcdRaw } from './support/etcd-raw.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';

const execFileAsync = promisify(execFile);
const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

describe.skipIf(!controlPlane)(
  `control plane (kube-apiserver ${controlPlane?.kubeApiserverVersion ?? 'unavailable'})`,
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const suffix = randomUUID().slice(0, 8);
    let kubeConfig: KubeConfig;
    let core: CoreV1Api;

    beforeAll(() => {
      kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      core = kubeConfig.makeApiClient(CoreV1Api);
    });

    it('reports a v1.36 kube-apiserver', () => {
      expect(cp.kubeApiserverVersion).toMatch(/^v1\.36\.\d+$/);
      expect(kubeConfig.getCurrentCluster()?.server).toBe(cp.apiServerUrl);
    });

    it('lists namespaces as the admin user', async () => {
      const namespaces = await core.listNamespace();
      expect(namespaces.items.map((ns) => ns.metadata?.name)).toEqual(
        expect.arrayContaining(['default', 'kube-system']),
      );
    });

    it('stores a ConfigMap in etcd and reads it back', async () => {
      const name = `e2e-cm-${suffix}`;
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name }, data: { greeting: 'hello' } },
      });
      const read = await core.readNamespacedConfigMap({ name, namespace: 'default' });
      expect(read.data).toEqual({ greeting: 'hello' });

      // Built-in kinds are protobuf in etcd ("k8s\0" envelope), so look for the bytes, not JSON.
      const stored = await readEtcdBytes(cp.etcdUrl, `/registry/configmaps/default/${name}`);
      expect(stored?.subarray(0, 4).toString('latin1')).toBe('k8s\0');
      expect(stored?.includes(name)).toBe(true);
      expect(stored?.includes('hello')).toBe(true);
      await expect(readEtcdRaw(cp.etcdUrl, `/registry/configmaps/default/${name}`)).rejects.toThrow(/not JSON/);
      expect(await readEtcdBytes(cp.etcdUrl, `/registry/configmaps/default/absent-${suffix}`)).toBeUndefined();
      expect(await readEtcdRaw(cp.etcdUrl, `/registry/configmaps/default/absent-${suffix}`)).toBeUndefined();

      await core.deleteNamespacedConfigMap({ name, namespace: 'default' });
    });

    describe('custom resources', () => {
      const group = `e2e-${suffix}.crdgate.test`;
      const crdName = `widgets.${group}`;
      let extensions: ApiextensionsV1Api;
      let customObjects: CustomObjectsApi;

      beforeAll(async () => {
        extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
        customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
        await extensions.createCustomResourceDefinition({
          body: {
            metadata: { name: crdName },
            spec: {
              group,
              scope: 'Namespaced',
              names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
              versions: [
                {
                  name: 'v1',
                  served: true,
                  storage: true,
                  schema: {
                    openAPIV3Schema: {
                      type: 'object',
                      properties: { spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
                    },
                  },
                },
              ],
            },
          },
        });
        await eventually(async () => {
          const crd = await extensions.readCustomResourceDefinition({ name: crdName });
          return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
        });
      });

      afterAll(async () => {
        await extensions?.deleteCustomResourceDefinition({ name: crdName }).catch(() => undefined);
      });

      it('are stored in etcd as JSON that readEtcdRaw returns', async () => {
        const body = {
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name: 'w1', namespace: 'default' },
          spec: { size: 3 },
        };
        // Discovery of a just-established CRD can lag by a moment; the create is what proves it serves.
        await eventually(async () => {
          await customObjects.createNamespacedCustomObject({
            group,
            version: 'v1',
            namespace: 'default',
            plural: 'widgets',
            body,
          });
          return true;
        });
        const stored = await readEtcdRaw(cp.etcdUrl, `/registry/${group}/widgets/default/w1`);
        expect(stored).toMatchObject({
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name: 'w1' },
          spec: { size: 3 },
        });
      });
    });

    it('answers kubectl with the admin kubeconfig', async () => {
      const { stdout } = await execFileAsync(cp.kubectlPath, [
        '--kubeconfig',
        cp.kubeconfigPath,
        'get',
        'ns',
        'default',
        '-o',
        'json',
      ]);
      const namespace = JSON.parse(stdout) as { kind: string; metadata: { name: string }; status: { phase: string } };
      expect(namespace).toMatchObject({
        kind: 'Namespace',
        metadata: { name: 'default' },
        status: { phase: 'Active' },
      });

      const { stdout: version } = await execFileAsync(cp.kubectlPath, [
        '--kubeconfig',
        cp.kubeconfigPath,
        'version',
        '-o',
        'json',
      ]);
      expect(JSON.parse(version)).toMatchObject({
        clientVersion: { gitVersion: cp.kubeApiserverVersion },
        serverVersion: { gitVersion: cp.kubeApiserverVersion },
      });
    });
  },
);

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`, { cause: lastError });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
