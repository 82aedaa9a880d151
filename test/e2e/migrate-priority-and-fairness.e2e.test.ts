import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthorizationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import type { Install } from '../../src/render/in-cluster-names.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import { manifestsToYaml } from '../../src/render/manifest-yaml.ts';
import { renderStorageMigration } from '../../src/render/storage-migration.ts';
import type { ProvidedControlPlane } from './provided-context.ts';
import { metricSum, scrapeApiServer } from './support/api-server-metrics.ts';
import { sharedControlPlane, useMigrationScene } from './support/migration-scene.ts';
import { kubectl, warningLines } from './support/kubectl.ts';
import { createNamespaces, runMigrate, storedVersions } from './support/storage-migration.ts';

describe.skipIf(!sharedControlPlane)(
  'the rendered migration runs in a priority level of its own (API Priority and Fairness)',
  () => {
    const { cp, scene, objectsToMigrate, storedIn } = useMigrationScene('crdgate-e2e-migrate-apf');
    let workDir: string;
    let install: Install;
    let rendered: Manifest[];
    let jobKubeconfig: string;
    let token: string;
    const named = (kind: string) => rendered.find((manifest) => manifest.kind === kind)!;
    const asJob = () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(jobKubeconfig);
      return kubeConfig;
    };

    beforeAll(async () => {
      const { kubeConfig } = scene();
      workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-migrate-apf-'));
      const [namespace] = await createNamespaces(kubeConfig, 'mig-apf', 1);
      // An install name of its own: its FlowSchema, priority level and ClusterRole are cluster-scoped.
      install = { name: `apf-${randomUUID().slice(0, 6)}`, namespace: namespace! };
      rendered = renderStorageMigration([geoDatabaseContract()], install, 'crdgate:e2e');
      await serverSideApply(
        kubeConfig,
        rendered.filter((manifest) => manifest.kind !== 'Job'),
      );
      // The Job's identity, as its pod would have it: a token of the rendered ServiceAccount.
      const account = named('ServiceAccount');
      const { status } = await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
        name: account.metadata.name,
        namespace: install.namespace,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      });
      token = status!.token!;
      jobKubeconfig = join(workDir, 'job-kubeconfig');
      const admin = parse(await readFile(cp.kubeconfigPath, 'utf8'));
      await writeFile(jobKubeconfig, stringify({ ...admin, users: [{ name: 'admin', user: { token } }] }));
    });

    afterAll(async () => {
      if (install) {
        const name = `${install.name}-migrate`;
        await kubectl(cp, [
          'delete',
          'flowschema,prioritylevelconfiguration,clusterrolebinding,clusterrole',
          name,
          '--ignore-not-found',
        ]);
      }
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    /** One new namespace of objects to migrate. */
    const namespaceToMigrate = async (count: number) => (await objectsToMigrate('mig-apf-objects', 1, count))[0]!;

    const uid = async (kind: string, name: string) =>
      (await kubectl(cp, ['get', kind, name, '-o', 'jsonpath={.metadata.uid}'])).stdout;

    it("classifies every request of the Job's ServiceAccount into the rendered FlowSchema and priority level, a small share of the API server", async () => {
      const schema = named('FlowSchema');
      const level = named('PriorityLevelConfiguration');
      // The FlowSchema names a priority level that exists.
      await eventually('the FlowSchema to find its priority level', async () => {
        const dangling = await kubectl(cp, [
          'get',
          'flowschema',
          schema.metadata.name,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Dangling")].status}',
        ]);
        return dangling.stdout === 'False' ? true : undefined;
      });
      // Every response says which FlowSchema and priority level the API server put the request in.
      const [schemaUid, levelUid] = [
        await uid('flowschema', schema.metadata.name),
        await uid('prioritylevelconfiguration', level.metadata.name),
      ];
      await eventually('a request of the ServiceAccount to be classified into the FlowSchema', async () => {
        const headers = await headersOf(cp, token, `/apis/geo.example.com/v1/geodatabases?limit=1`);
        return headers['x-kubernetes-pf-flowschema-uid'] === schemaUid ? headers : undefined;
      });
      const asJob = await headersOf(cp, token, `/apis/geo.example.com/v1/geodatabases?limit=1`);
      expect(asJob['x-kubernetes-pf-prioritylevel-uid']).toBe(levelUid);
      // The admin is not the Job: its requests stay where they were.
      expect(
        (await headersOf(cp, undefined, `/apis/geo.example.com/v1/geodatabases?limit=1`))[
          'x-kubernetes-pf-flowschema-uid'
        ],
      ).not.toBe(schemaUid);

      const namespace = await namespaceToMigrate(60);
      const labels = { flow_schema: schema.metadata.name, priority_level: level.metadata.name };
      const before = await scrapeApiServer(cp);
      const run = await runMigrate(['--kubeconfig', jobKubeconfig, '--output', 'json']);
      const after = await scrapeApiServer(cp);

      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = run.report();
      expect(report.objects.rewritten).toBeGreaterThanOrEqual(60);
      expect(await storedVersions(scene().kubeConfig)).toEqual(['v1']);
      expect(new Set(await storedIn([namespace]))).toEqual(new Set(['geo.example.com/v1']));
      // Its writes, at least one list, the CRD's read and its status write: all dispatched in the migration's level.
      const dispatched =
        metricSum(after, 'apiserver_flowcontrol_dispatched_requests_total', labels) -
        metricSum(before, 'apiserver_flowcontrol_dispatched_requests_total', labels);
      expect(dispatched).toBeGreaterThanOrEqual(report.objects.rewritten + 3);

      // Its share of this API server's seats: small, and not zero.
      const seats = metricSum(after, 'apiserver_flowcontrol_nominal_limit_seats', {
        priority_level: level.metadata.name,
      });
      const allSeats = metricSum(after, 'apiserver_flowcontrol_nominal_limit_seats');
      expect(seats).toBeGreaterThan(0);
      expect(seats / allSeats).toBeLessThan(0.05);
    }, 300_000);

    it('sheds the migration with 429 and Retry-After once its level is full, and crdgate migrate waits as asked and finishes', async () => {
      const level = named('PriorityLevelConfiguration') as Manifest & { spec: Record<string, unknown> };
      // The smallest level there is, rejecting at once instead of queuing: 16 writers cannot all be served.
      const tiny = {
        ...level,
        spec: {
          type: 'Limited',
          limited: {
            nominalConcurrencyShares: 1,
            lendablePercent: 0,
            borrowingLimitPercent: 0,
            limitResponse: { type: 'Reject' },
          },
        },
      };
      await serverSideApply(scene().kubeConfig, [tiny]);
      try {
        await eventually('the priority level to shrink', async () => {
          const seats = metricSum(await scrapeApiServer(cp), 'apiserver_flowcontrol_nominal_limit_seats', {
            priority_level: level.metadata.name,
          });
          return seats > 0 && seats <= 3 ? true : undefined;
        });
        const namespace = await namespaceToMigrate(100);
        const labels = { flow_schema: named('FlowSchema').metadata.name, priority_level: level.metadata.name };
        const before = await scrapeApiServer(cp);
        let stderr = '';
        const run = await runMigrate(
          [
            '--kubeconfig',
            jobKubeconfig,
            '--concurrency',
            '16',
            '--qps',
            '100000',
            '--retries',
            '20',
            '--output',
            'json',
          ],
          {
            onStderr: (text) => (stderr += text),
          },
        );
        const after = await scrapeApiServer(cp);

        expect(run.code, run.stdout + stderr).toBe(0);
        expect(run.report()).toMatchObject({ outcome: 'migrated', objects: { failed: 0 } });
        expect(await storedVersions(scene().kubeConfig)).toEqual(['v1']);
        expect(new Set(await storedIn([namespace]))).toEqual(new Set(['geo.example.com/v1']));
        const rejected =
          metricSum(after, 'apiserver_flowcontrol_rejected_requests_total', labels) -
          metricSum(before, 'apiserver_flowcontrol_rejected_requests_total', labels);
        expect(rejected).toBeGreaterThan(0);
        // Each 429 is retried no sooner than its Retry-After (whole seconds, at least 1), not after crdgate's own
        // first backoffs of 0.25 to 1 s.
        const waits = [...stderr.matchAll(/^retrying .* in ([\d.]+) s: HTTP 429/gm)].map((match) => Number(match[1]));
        expect(waits.length).toBeGreaterThan(0);
        expect(Math.min(...waits)).toBeGreaterThanOrEqual(1);
      } finally {
        await serverSideApply(scene().kubeConfig, [level]);
      }
    }, 300_000);

    it('runs the rendered shards through the status path as the ServiceAccount: its Role reaches the empty record, every request stays in the FlowSchema', async () => {
      const sharded = renderStorageMigration([geoDatabaseContract()], install, 'crdgate:e2e', {
        shards: 2,
        via: 'status',
      });
      // The Indexed Job is checked by the API server under strict validation and the restricted Pod Security
      // Standard (no controller runs its pods here); the rest is applied, replacing the unsharded role.
      const file = join(workDir, 'sharded-migration.yaml');
      await writeFile(file, manifestsToYaml(sharded));
      await kubectl(cp, [
        'label',
        'namespace',
        install.namespace,
        'pod-security.kubernetes.io/enforce=restricted',
        'pod-security.kubernetes.io/warn=restricted',
        '--overwrite',
      ]);
      const checked = await kubectl(cp, [
        'apply',
        '--server-side',
        '--force-conflicts',
        '--dry-run=server',
        '--validate=strict',
        '-f',
        file,
      ]);
      expect(checked.exitCode, checked.stderr).toBe(0);
      expect(warningLines(checked)).toEqual([]);
      const job = sharded.find((manifest) => manifest.kind === 'Job') as Manifest & { spec: any };
      expect(checked.stdout).toContain(`job.batch/${job.metadata.name} serverside-applied`);
      await serverSideApply(
        scene().kubeConfig,
        sharded.filter((manifest) => manifest.kind !== 'Job'),
      );
      const { kubeConfig } = scene();
      await eventually('the ClusterRole to allow status writes', async () => {
        const review = await asJob()
          .makeApiClient(AuthorizationV1Api)
          .createSelfSubjectAccessReview({
            body: {
              spec: {
                resourceAttributes: {
                  group: 'geo.example.com',
                  resource: 'geodatabases',
                  subresource: 'status',
                  verb: 'update',
                },
              },
            },
          });
        return review.status?.allowed === true ? true : undefined;
      });

      const namespace = await namespaceToMigrate(40);
      // The pods' arguments, as the kubelet expands them for each completion index.
      const argsOf = (index: number) =>
        (job.spec.template.spec.containers[0].args as string[])
          .slice(3)
          .map((arg) =>
            arg.replace('$(JOB_COMPLETION_INDEX)', String(index)).replace('$(POD_NAMESPACE)', install.namespace),
          );
      const labels = {
        flow_schema: named('FlowSchema').metadata.name,
        priority_level: named('PriorityLevelConfiguration').metadata.name,
      };
      const before = await scrapeApiServer(cp);
      const runs = await Promise.all(
        [0, 1].map((index) => runMigrate(['--kubeconfig', jobKubeconfig, '--output', 'json', ...argsOf(index)])),
      );
      const after = await scrapeApiServer(cp);

      for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
      const reports = runs.map((run) => run.report());
      expect(reports.map((report) => report.via)).toEqual(['status', 'status']);
      expect(await storedVersions(kubeConfig)).toEqual(['v1']);
      expect(new Set(await storedIn([namespace]))).toEqual(new Set(['geo.example.com/v1']));
      const record = await kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ name: job.metadata.name, namespace: install.namespace });
      expect(Object.keys(record.data ?? {}).sort()).toEqual(['shard-0-of-2', 'shard-1-of-2']);
      // Each shard's writes, its reads and write of the record, the lists: none fell to another FlowSchema.
      const rewritten = reports.reduce((sum, report) => sum + report.objects.rewritten, 0);
      const dispatched =
        metricSum(after, 'apiserver_flowcontrol_dispatched_requests_total', labels) -
        metricSum(before, 'apiserver_flowcontrol_dispatched_requests_total', labels);
      expect(rewritten).toBe(40);
      expect(dispatched).toBeGreaterThanOrEqual(rewritten + 2 * 4);
    }, 300_000);
  },
);

/** The response headers of a GET as the ServiceAccount's token, or as the admin's client certificate. */
async function headersOf(
  cp: ProvidedControlPlane,
  token: string | undefined,
  path: string,
): Promise<Record<string, string | string[] | undefined>> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cp.kubeconfigPath);
  const cluster = kubeConfig.getCurrentCluster()!;
  const user = kubeConfig.getCurrentUser()!;
  const decode = (data: string | undefined) => Buffer.from(data ?? '', 'base64');
  const credentials = token === undefined ? { cert: decode(user.certData), key: decode(user.keyData) } : {};
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cluster.server),
      {
        ca: decode(cluster.caData),
        ...credentials,
        agent: false,
        headers: { accept: 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(res.headers) : reject(new Error(`GET ${path}: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
