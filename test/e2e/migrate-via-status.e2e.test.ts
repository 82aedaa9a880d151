import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../../src/local-loop/eventually.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import { isNotFound } from './support/api-error.ts';
import { sharedControlPlane, useMigrationScene } from './support/migration-scene.ts';
import { geoDatabases } from './support/geodatabases.ts';
import {
  createGeoDatabases,
  createNamespaces,
  readContents,
  runMigrate,
  storedApiVersion,
  storedGeoDatabases,
  storedVersions,
} from './support/storage-migration.ts';

describe.skipIf(!sharedControlPlane)(
  'crdgate migrate --via status: past a policy that refuses every update of the resource',
  () => {
    const { cp, scene, kubeconfig, setVersions } = useMigrationScene('crdgate-e2e-migrate-via-status');
    const policyName = `e2e-no-updates-${Math.random().toString(36).slice(2, 8)}`;
    const plainCrd = 'widgets.via-status.e2e.example.com';

    afterAll(async () => {
      if (!sharedControlPlane) return;
      const admission = scene().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
      const ignoreNotFound = (error: unknown) => {
        if (!isNotFound(error)) throw error;
      };
      await admission.deleteValidatingAdmissionPolicyBinding({ name: policyName }).catch(ignoreNotFound);
      await admission.deleteValidatingAdmissionPolicy({ name: policyName }).catch(ignoreNotFound);
      await scene()
        .kubeConfig.makeApiClient(ApiextensionsV1Api)
        .deleteCustomResourceDefinition({ name: plainCrd })
        .catch(ignoreNotFound);
    });

    /**
     * A third party's ValidatingAdmissionPolicy: no UPDATE of a GeoDatabase in `namespace`, not even one that changes
     * nothing. It names the resource alone, as such policies do, so the status subresource is not covered.
     */
    async function refuseEveryUpdate(namespace: string): Promise<void> {
      const { kubeConfig } = scene();
      await serverSideApply(kubeConfig, [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: policyName },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
              resourceRules: [
                {
                  apiGroups: ['geo.example.com'],
                  apiVersions: ['*'],
                  operations: ['UPDATE'],
                  resources: ['geodatabases'],
                },
              ],
            },
            validations: [{ expression: 'false', message: 'GeoDatabases are frozen: no updates (e2e policy)' }],
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: policyName },
          spec: { policyName, validationActions: ['Deny'] },
        },
      ]);
      const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
      const name = 'db-0001';
      await eventually('the policy to refuse updates', async () => {
        const current = await customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name });
        return customObjects
          .replaceNamespacedCustomObject({ ...geoDatabases, namespace, name, body: current, dryRun: 'All' })
          .then(
            () => undefined,
            (error: { code?: number; body?: string }) =>
              String(error.body).includes('GeoDatabases are frozen') ? true : Promise.reject(error as Error),
          );
      });
    }

    it('the default run exits 1 naming every refused object; --via status migrates them all and trims', async () => {
      const { kubeConfig } = scene();
      await setVersions('v1beta1');
      const [namespace] = (await createNamespaces(kubeConfig, 'mig-via-status', 1)) as [string];
      const names = await createGeoDatabases(kubeConfig, [namespace], 30, { inFlight: 8 });
      await setVersions('v1');
      const contents = await readContents(kubeConfig, [namespace]);
      const storedBefore = await storedGeoDatabases(cp.etcdUrl, [namespace]);
      expect(new Set(storedBefore.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1beta1']));
      await refuseEveryUpdate(namespace);

      const refused = await runMigrate([...kubeconfig, '--output', 'json']);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      const report = refused.report();
      expect(report).toMatchObject({
        outcome: 'failed',
        via: 'object',
        objects: { seen: 30, failed: 30, rewritten: 0 },
      });
      expect(report.failures.map((failure) => `${failure.namespace}/${failure.name}`).sort()).toEqual(names);
      for (const failure of report.failures)
        expect(failure.message).toContain('GeoDatabases are frozen: no updates (e2e policy)');
      expect(report.storedVersions.why).toBe('not trimmed: 30 object(s) were refused');
      expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1beta1', 'v1']));
      expect(await storedGeoDatabases(cp.etcdUrl, [namespace])).toEqual(storedBefore);

      const viaStatus = await runMigrate([...kubeconfig, '--via', 'status']);
      expect(viaStatus.code, viaStatus.stdout + viaStatus.stderr).toBe(0);
      expect(viaStatus.stdout).toMatch(/^migrated: every geodatabases\.geo\.example\.com object is stored in v1\n/);
      expect(viaStatus.stdout).toMatch(
        /objects +30 seen: 30 rewritten, 0 already current, 0 gone, 0 failed \(written through the status subresource\)/,
      );
      expect(await storedVersions(kubeConfig)).toEqual(['v1']);
      const storedAfter = await storedGeoDatabases(cp.etcdUrl, [namespace]);
      expect(storedAfter.map((entry) => entry.key)).toEqual(storedBefore.map((entry) => entry.key));
      expect(new Set(storedAfter.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1']));
      expect(await readContents(kubeConfig, [namespace])).toEqual(contents);
      await kubeConfig
        .makeApiClient(CustomObjectsApi)
        .deleteCollectionNamespacedCustomObject({ ...geoDatabases, namespace });
    }, 180_000);

    it('leaves an object whose managedFields name a removed version unwritten, since status would clear them all; the plain run mends it', async () => {
      const { kubeConfig } = scene();
      expect(await storedVersions(kubeConfig)).toEqual(['v1']);
      const [namespace] = (await createNamespaces(kubeConfig, 'mig-via-status-fields', 1)) as [string];
      const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
      const name = 'applied';
      // A GitOps tool applied it through v1alpha1, then another writer changed a label through v1.
      await KubernetesObjectApi.makeApiClient(kubeConfig).patch(
        {
          apiVersion: 'geo.example.com/v1alpha1',
          kind: 'GeoDatabase',
          metadata: { name, namespace },
          spec: { postgresVersion: '16.4', postgisVersion: '3.4.2', storageGB: 20 },
        } as any,
        undefined,
        undefined,
        'gitops-tool',
        true,
        PatchStrategy.ServerSideApply,
      );
      const current = (await customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name })) as any;
      current.metadata.labels = { team: 'maps' };
      await customObjects.replaceNamespacedCustomObject({
        ...geoDatabases,
        namespace,
        name,
        body: current,
        fieldManager: 'other-writer',
      });
      const read = async () =>
        (await customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name })) as any;
      const managers = (object: any) =>
        (object.metadata.managedFields as Array<{ manager: string; apiVersion: string }>)
          .map((entry) => `${entry.manager} ${entry.apiVersion}`)
          .sort();
      const before = await read();
      expect(managers(before)).toEqual(['gitops-tool geo.example.com/v1alpha1', 'other-writer geo.example.com/v1']);
      await setVersions('v1', { removed: ['v1alpha1'] });

      const viaStatus = await runMigrate([...kubeconfig, '--via', 'status', '--output', 'json']);
      expect(viaStatus.code, viaStatus.stdout + viaStatus.stderr).toBe(1);
      expect(viaStatus.report().failures).toEqual([
        {
          namespace,
          name,
          code: 0,
          message: expect.stringContaining(
            'its managedFields name geo.example.com/v1alpha1, no longer served; through the status subresource',
          ),
        },
      ]);
      const untouched = await read();
      expect(untouched.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect(managers(untouched)).toEqual(managers(before));

      const plain = await runMigrate(kubeconfig);
      expect(plain.code, plain.stdout + plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(/^mended: /);
      expect(managers(await read())).toEqual(['other-writer geo.example.com/v1']);
    }, 120_000);

    it('refuses --via status with exit 2 when the CRD has no status subresource', async () => {
      const { kubeConfig } = scene();
      await serverSideApply(kubeConfig, [
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: plainCrd },
          spec: {
            group: 'via-status.e2e.example.com',
            scope: 'Namespaced',
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            ],
          },
        },
      ]);
      const run = await runMigrate([...kubeconfig, '--resource', plainCrd, '--via', 'status']);
      expect(run).toMatchObject({ code: 2, stdout: '' });
      expect(run.stderr).toBe(
        `crdgate migrate: --via status: the CRD ${plainCrd} has no status subresource in its storage version v1, so objects can only be written as themselves (run without --via status)\n`,
      );
    });
  },
);
