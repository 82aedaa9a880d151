import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { renderStorageMigration } from '../../src/render/storage-migration.ts';
import { sharedControlPlane, useMigrationScene } from './support/migration-scene.ts';
import { kubectl } from './support/kubectl.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { geoDatabases } from './support/geodatabases.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import {
  createNamespaces,
  resource,
  runMigrate,
  storedGeoDatabases,
  storedVersions,
} from './support/storage-migration.ts';

const cliPath = new URL('../../src/cli.ts', import.meta.url).pathname;

describe.skipIf(!sharedControlPlane)(
  'crdgate migrate as a Job runs it: stopped, with its own RBAC, after a version is retired',
  () => {
    const { cp, scene, kubeconfig, setVersions, objectsToMigrate, storedIn } =
      useMigrationScene('crdgate-e2e-migrate-ops');
    let workDir: string;
    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-migrate-ops-'));
    });
    afterAll(async () => {
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    /** One new namespace of objects to migrate. */
    const namespaceToMigrate = async (prefix: string, count: number) => (await objectsToMigrate(prefix, 1, count))[0]!;

    it('stops on SIGTERM after the writes in flight, says so, leaves storedVersions alone; a rerun completes', async () => {
      const namespace = await namespaceToMigrate('mig-sigterm', 40);
      const child = spawn(
        process.execPath,
        [cliPath, 'migrate', '--resource', resource, ...kubeconfig, '--qps', '4', '--concurrency', '1'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk;
          if (stderr.includes('progress: ')) resolve();
        });
        void exited.then(() => resolve());
      });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      child.kill('SIGTERM');
      const code = await exited;

      expect(code, stdout + stderr).toBe(3);
      expect(stdout).toMatch(
        /^interrupted: stopped by a signal after the writes in flight; storedVersions left as it was/,
      );
      const done = Number(/objects +(\d+) seen/.exec(stdout)?.[1]);
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(40);
      expect(await storedVersions(scene().kubeConfig)).toEqual(expect.arrayContaining(['v1', 'v1beta1']));
      expect(
        (await storedIn([namespace])).filter((version) => version === 'geo.example.com/v1beta1').length,
      ).toBeGreaterThan(0);

      const rerun = await runMigrate(kubeconfig);
      expect(rerun.code, rerun.stdout).toBe(0);
      expect(await storedVersions(scene().kubeConfig)).toEqual(['v1']);
      expect(new Set(await storedIn([namespace]))).toEqual(new Set(['geo.example.com/v1']));
    }, 180_000);

    it('mends a managedFields entry of a version taken out of the CRD, so server-side apply works again', async () => {
      const { kubeConfig } = scene();
      expect((await runMigrate(kubeconfig)).code).toBe(0); // storedVersions [v1]: v1alpha1 may leave the CRD
      const [namespace] = await createNamespaces(kubeConfig, 'mig-fields', 1);
      const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
      const apply = (body: object) =>
        objects.patch(body as any, undefined, undefined, 'gitops-tool', true, PatchStrategy.ServerSideApply);
      const metadata = { name: 'applied', namespace };
      await apply({
        apiVersion: 'geo.example.com/v1alpha1',
        kind: 'GeoDatabase',
        metadata,
        spec: { postgresVersion: '16.4', postgisVersion: '3.4.2', storageGB: 20 },
      });
      const managers = async () => {
        const object = (await kubeConfig
          .makeApiClient(CustomObjectsApi)
          .getNamespacedCustomObject({ ...geoDatabases, namespace: namespace!, name: 'applied' })) as any;
        return (object.metadata.managedFields as Array<{ manager: string; apiVersion: string }>).map(
          (entry) => `${entry.manager} ${entry.apiVersion}`,
        );
      };
      expect(await managers()).toContain('gitops-tool geo.example.com/v1alpha1');

      await setVersions('v1', { removed: ['v1alpha1'] });
      const v1Apply = {
        apiVersion: 'geo.example.com/v1',
        kind: 'GeoDatabase',
        metadata,
        spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '21Gi' } },
      };
      // kubernetes/kubernetes#111937: the entry in v1alpha1 makes every apply fail once v1alpha1 is gone.
      await expect(apply(v1Apply)).rejects.toMatchObject({
        body: expect.stringContaining('invalid group/version: geo.example.com/v1alpha1'),
      });

      // Every object created through v1alpha1 so far in this file has such an entry, not only this one.
      const all = (await kubeConfig
        .makeApiClient(CustomObjectsApi)
        .listClusterCustomObject({ ...geoDatabases })) as any;
      const stale = all.items.filter((item: any) =>
        item.metadata.managedFields.some((entry: any) => entry.apiVersion === 'geo.example.com/v1alpha1'),
      ).length;
      expect(stale).toBeGreaterThanOrEqual(1);
      const run = await runMigrate(kubeconfig);
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toMatch(/^mended: storedVersions was already \[v1\]/);
      expect(run.stdout).toContain(
        `managedFields     ${stale} entries in versions no longer served dropped from ${stale} objects`,
      );
      expect((await managers()).filter((entry) => entry.endsWith('v1alpha1'))).toEqual([]);
      await apply(v1Apply);
      expect(
        (await storedGeoDatabases(cp.etcdUrl, [namespace!])).map(
          (entry) => JSON.parse(entry.value.toString()).spec.storage.size,
        ),
      ).toEqual(['21Gi']);

      const again = await runMigrate(kubeconfig);
      expect(again.stdout).toMatch(/^nothing to do/);
      await setVersions('v1');
    }, 180_000);

    it("runs with the rendered Job's ServiceAccount, and each permission of its role is needed", async () => {
      const { kubeConfig } = scene();
      const [jobNamespace] = await createNamespaces(kubeConfig, 'mig-rbac', 1);
      const rendered = renderStorageMigration(
        [geoDatabaseContract()],
        { name: 'crdgate', namespace: jobNamespace! },
        'crdgate:e2e',
      ).filter((manifest) => manifest.kind !== 'Job');
      await serverSideApply(kubeConfig, rendered);
      const role = rendered.find((manifest) => manifest.kind === 'ClusterRole') as any;
      const account = rendered.find((manifest) => manifest.kind === 'ServiceAccount')!;
      const { status } = await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
        name: account.metadata.name,
        namespace: jobNamespace!,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      });
      const jobKubeconfig = join(workDir, 'job-kubeconfig');
      const admin = parse(await readFile(cp.kubeconfigPath, 'utf8'));
      await writeFile(
        jobKubeconfig,
        stringify({ ...admin, users: [{ name: 'admin', user: { token: status!.token } }] }),
      );
      const asJob = new KubeConfig();
      asJob.loadFromFile(jobKubeconfig);
      const can = async (verb: string, resourceName: string, group: string, subresource?: string) => {
        const review = await asJob.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
          // The role names its CRDs, so a check about a CRD must name one too.
          body: {
            spec: {
              resourceAttributes: {
                group,
                resource: resourceName,
                verb,
                ...(group === 'apiextensions.k8s.io' ? { name: resource } : {}),
                ...(subresource ? { subresource } : {}),
              },
            },
          },
        });
        return review.status?.allowed === true;
      };

      const namespace = await namespaceToMigrate('mig-rbac-objects', 5);
      // What each missing verb must give: the run names the real cause (a 403 on the list or on the CRD's status
      // stops it as forbidden; on an object's write it is an answer about that object), never "the API server kept failing".
      const permissions = [
        {
          verb: 'list',
          rule: 0,
          check: () => can('list', 'geodatabases', 'geo.example.com'),
          code: 1,
          report: { outcome: 'aborted', cause: 'forbidden' },
        },
        {
          verb: 'update',
          rule: 0,
          check: () => can('update', 'geodatabases', 'geo.example.com'),
          code: 1,
          report: { outcome: 'failed', failures: expect.arrayContaining([expect.objectContaining({ code: 403 })]) },
        },
        {
          verb: 'get',
          rule: 1,
          check: () => can('get', 'customresourcedefinitions', 'apiextensions.k8s.io'),
          code: 2,
          report: undefined,
        },
        {
          verb: 'update',
          rule: 2,
          check: () => can('update', 'customresourcedefinitions', 'apiextensions.k8s.io', 'status'),
          code: 1,
          report: { outcome: 'aborted', cause: 'forbidden' },
        },
      ];
      for (const permission of permissions) {
        const rules = structuredClone(role.rules);
        rules[permission.rule].verbs = rules[permission.rule].verbs.filter((verb: string) => verb !== permission.verb);
        // A rule left with no verb is invalid: take it out instead.
        await serverSideApply(kubeConfig, [
          { ...role, rules: rules.filter((rule: { verbs: string[] }) => rule.verbs.length > 0) },
        ]);
        await eventually(`the role to lose ${permission.verb} (rule ${permission.rule})`, async () =>
          (await permission.check()) ? undefined : true,
        );
        const run = await runMigrate(['--kubeconfig', jobKubeconfig, '--retries', '0', '--output', 'json']);
        expect(run.code, `without ${permission.verb} of rule ${permission.rule}: ${run.stdout}${run.stderr}`).toBe(
          permission.code,
        );
        // Without get on the CRD the run cannot start: a configuration error (exit 2), no report.
        if (permission.report) expect(run.report()).toMatchObject(permission.report);
        expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1', 'v1beta1']));
        await serverSideApply(kubeConfig, [role]);
        await eventually(`the role to have ${permission.verb} again`, async () =>
          (await permission.check()) ? true : undefined,
        );
      }

      const run = await runMigrate(['--kubeconfig', jobKubeconfig]);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(await storedVersions(kubeConfig)).toEqual(['v1']);
      expect(new Set(await storedIn([namespace]))).toEqual(new Set(['geo.example.com/v1']));
      const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
      await rbac.deleteClusterRoleBinding({
        name: rendered.find((m) => m.kind === 'ClusterRoleBinding')!.metadata.name,
      });
      await rbac.deleteClusterRole({ name: role.metadata.name });
      // The migration's FlowSchema and priority level are cluster-scoped too.
      await kubectl(cp, ['delete', 'flowschema,prioritylevelconfiguration', role.metadata.name, '--ignore-not-found']);
    }, 300_000);
  },
);
