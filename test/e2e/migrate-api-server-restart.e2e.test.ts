import { spawn } from 'node:child_process';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.ts';
import type { MigrationReport } from '../../src/migrate/migration-report.ts';
import { MIGRATE_STOP_BOUND_SECONDS } from '../../src/migrate/stop.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  removeCrdgate,
  startCrdgateForApiServer,
  type CrdgateInFront,
} from './support/crdgate-webhooks.ts';
import {
  applyCrdVersions,
  createGeoDatabases,
  readContents,
  resource,
  runMigrate,
  storedApiVersion,
  storedGeoDatabases,
  storedVersions,
} from './support/storage-migration.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const cliPath = new URL('../../src/cli.ts', import.meta.url).pathname;

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
    const run = runMigrate(
      ['--kubeconfig', plane.kubeconfigPath, '--qps', '10', '--concurrency', '2', '--retries', '12'],
      {
        onStderr: (text) => {
          const done = /progress: (\d+)/.exec(text);
          if (done && Number(done[1]) >= 30) reached();
        },
      },
    );
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

  it('stops on SIGTERM while retrying against a stopped API server: exit 3 within the bound, a report, storedVersions untouched', async () => {
    const sigtermNamespace = 'restart-sigterm';
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: sigtermNamespace } } });
    await applyCrdVersions(kubeConfig, plane.etcdUrl, gate.crd, { storage: 'v1beta1' }, namespace);
    await createGeoDatabases(kubeConfig, [sigtermNamespace], 40);
    await applyCrdVersions(kubeConfig, plane.etcdUrl, gate.crd, { storage: 'v1' }, namespace);
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1', 'v1beta1']));

    // A process of its own, as a Job runs it: the exit code and the signal are the real ones. Many retries, so that
    // without a stop signal reaching the backoff it would go on waiting for minutes.
    const args = [
      'migrate',
      '--resource',
      resource,
      '--kubeconfig',
      plane.kubeconfigPath,
      '--qps',
      '5',
      '--concurrency',
      '1',
      '--retries',
      '12',
      '--output',
      'json',
    ];
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => pattern.test(stderr) && resolve();
        child.stderr.on('data', check);
        void exited.then(() => resolve());
        check();
      });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    try {
      await seen(/^progress: [1-9]/m);
      await plane.stopApiServer();
      // A backoff of a few seconds: the run is waiting, not sending, when the signal comes.
      await seen(/^retrying .* in ([2-9]|\d{2,})\.\d s: /m);
      const signalledAt = performance.now();
      child.kill('SIGTERM');
      const limit = new Promise<'still running'>((resolve) =>
        setTimeout(() => resolve('still running'), (MIGRATE_STOP_BOUND_SECONDS + 5) * 1000),
      );
      const code = await Promise.race([exited, limit]);
      const seconds = (performance.now() - signalledAt) / 1000;

      expect(code, stdout + stderr).toBe(3);
      expect(seconds).toBeLessThanOrEqual(MIGRATE_STOP_BOUND_SECONDS);
      const report = JSON.parse(stdout) as MigrationReport;
      expect(report.outcome).toBe('interrupted');
      expect(report.objects.seen).toBeGreaterThan(0);
      expect(report.objects.seen).toBeLessThan(40);
      expect(report.storedVersions.after).toEqual(report.storedVersions.before);
    } finally {
      child.kill('SIGKILL');
      await plane.startApiServer();
    }
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1', 'v1beta1']));

    const rerun = await runMigrate(['--kubeconfig', plane.kubeconfigPath, '--output', 'json']);
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.report().outcome).toBe('migrated');
    expect(await storedVersions(kubeConfig)).toEqual(['v1']);
    const stored = await storedGeoDatabases(plane.etcdUrl, [sigtermNamespace]);
    expect(new Set(stored.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1']));
  }, 300_000);
});
