import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { findFreePort } from '../../src/control-plane/free-port.ts';
import { describe, expect, it } from 'vitest';
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

describe.skipIf(!sharedControlPlane)('crdgate migrate through the real API server', () => {
  const { cp, scene, kubeconfig, setVersions, storedIn } = useMigrationScene('crdgate-e2e-migrate');

  it('moves 1,000 objects from v1beta1 to v1 storage while writers update and delete some, losing nothing', async () => {
    const { kubeConfig } = scene();
    const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
    await setVersions('v1beta1');
    const namespaces = await createNamespaces(kubeConfig, 'mig', 4);
    const keys = await createGeoDatabases(kubeConfig, namespaces, 250);
    const storedBefore = await storedGeoDatabases(cp.etcdUrl, namespaces);
    expect(storedBefore).toHaveLength(1000);
    expect(new Set(storedBefore.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1beta1']));
    expect(
      storedBefore.filter((entry) => entry.value.toString().includes('geo.example.com/conversion-data')).length,
    ).toBeGreaterThan(100);

    await setVersions('v1');
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1beta1', 'v1']));
    const before = await readContents(kubeConfig, namespaces);
    expect(before.size).toBe(1000);

    // Writers: some objects are updated over and over while the run goes on; each must keep its last update.
    const written = keys.filter((_, i) => i % 100 === 7);
    // Deleted during the run, after the first chunk (300 objects) was listed and before the workers reach them.
    const deleted = keys.slice(270, 280);
    const lastAcked = new Map<string, number>();
    let running = true;
    const writer = async (key: string): Promise<void> => {
      const [namespace, name] = key.split('/') as [string, string];
      for (let n = 1; running; n++) {
        for (;;) {
          const current = (await customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name })) as any;
          current.metadata.annotations = { ...current.metadata.annotations, 'e2e.crdgate/counter': String(n) };
          try {
            await customObjects.replaceNamespacedCustomObject({ ...geoDatabases, namespace, name, body: current });
            lastAcked.set(key, n);
            break;
          } catch (error) {
            if ((error as { code?: number }).code !== 409) throw error;
          }
        }
        // A steady trickle, as an operator's writes would be, rather than a flood that starves the run.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    let started!: () => void;
    const firstProgress = new Promise<void>((resolve) => (started = resolve));
    const run = runMigrate([...kubeconfig, '--chunk-size', '300'], {
      onStderr: (text) => text.startsWith('progress:') && started(),
    });
    await Promise.race([firstProgress, run]);
    const writers = written.map(writer);
    for (const key of deleted) {
      const [namespace, name] = key.split('/') as [string, string];
      await customObjects.deleteNamespacedCustomObject({ ...geoDatabases, namespace, name });
    }
    const result = await run.finally(() => (running = false));
    await Promise.all(writers);

    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^migrated: every geodatabases.geo.example.com object is stored in v1/);
    expect(result.stdout).toMatch(/objects +1000 seen: \d+ rewritten, \d+ already current, \d+ gone, 0 failed/);
    const gone = Number(/(\d+) gone/.exec(result.stdout)![1]);
    expect(gone).toBeGreaterThanOrEqual(1);
    expect(gone).toBeLessThanOrEqual(deleted.length);
    expect(await storedVersions(kubeConfig)).toEqual(['v1']);

    const storedAfter = await storedGeoDatabases(cp.etcdUrl, namespaces);
    expect(storedAfter).toHaveLength(1000 - deleted.length);
    expect(new Set(storedAfter.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1']));

    const after = await readContents(kubeConfig, namespaces);
    for (const key of deleted) expect(after.has(key)).toBe(false);
    for (const [key, content] of before) {
      if (deleted.includes(key)) continue;
      const { 'e2e.crdgate/counter': counter, ...annotations } = after.get(key)!.annotations;
      expect({ ...after.get(key), annotations }, key).toEqual(content);
      if (written.includes(key)) expect(Number(counter), `${key} keeps its last update`).toBe(lastAcked.get(key));
    }
    expect([...lastAcked.values()].every((n) => n >= 1)).toBe(true);

    const again = await runMigrate(kubeconfig);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^nothing to do: storedVersions is already \[v1\]/);
    for (const namespace of namespaces)
      await customObjects.deleteCollectionNamespacedCustomObject({ ...geoDatabases, namespace });
    // Every write goes through three webhook calls (conversion of the stored object, mutating, validating): on a
    // shared 2-core machine that is 20-60 objects a second.
  }, 600_000);

  it('reports what a dry run would refuse without writing, then names the refused object and leaves storedVersions alone', async () => {
    const { kubeConfig } = scene();
    await setVersions('v1beta1');
    const [namespace] = await createNamespaces(kubeConfig, 'mig-refused', 1);
    await createGeoDatabases(kubeConfig, [namespace!], 12);
    const frozen = await freezeOne(namespace!, 'db-0005');
    await setVersions('v1');
    const storedBefore = await storedGeoDatabases(cp.etcdUrl, [namespace!]);

    const dryRun = await runMigrate([...kubeconfig, '--dry-run', '--output', 'json']);
    expect(dryRun.code, dryRun.stderr).toBe(1);
    const preview = dryRun.report();
    expect(preview).toMatchObject({ dryRun: true, outcome: 'failed', objects: { failed: 1 } });
    expect(preview.failures).toEqual([
      { namespace, name: 'db-0005', code: 422, message: expect.stringContaining('frozen by e2e policy') },
    ]);
    expect(await storedGeoDatabases(cp.etcdUrl, [namespace!])).toEqual(storedBefore);

    const real = await runMigrate(kubeconfig);
    expect(real.code).toBe(1);
    expect(real.stdout).toMatch(/1 object\(s\) were refused; storedVersions left as it was/);
    expect(real.stdout).toContain(`${namespace}/db-0005: HTTP 422: `);
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1', 'v1beta1']));
    const stored = await storedGeoDatabases(cp.etcdUrl, [namespace!]);
    expect(
      stored.filter((entry) => storedApiVersion(entry) === 'geo.example.com/v1beta1').map((entry) => entry.key),
    ).toEqual([`/registry/geo.example.com/geodatabases/${namespace}/db-0005`]);

    await frozen.thaw();
    const rerun = await runMigrate(kubeconfig);
    expect(rerun.code, rerun.stdout).toBe(0);
    expect(await storedVersions(kubeConfig)).toEqual(['v1']);
    expect(new Set(await storedIn([namespace!]))).toEqual(new Set(['geo.example.com/v1']));
  }, 300_000);

  /** A ValidatingAdmissionPolicy that refuses every update of one object: the API server's own admission says no (422). */
  async function freezeOne(namespace: string, name: string): Promise<{ thaw: () => Promise<void> }> {
    const { kubeConfig } = scene();
    const { AdmissionregistrationV1Api, KubernetesObjectApi } = await import('@kubernetes/client-node');
    const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
    const policyName = `e2e-freeze-${namespace}`;
    await objects.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policyName },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: ['geo.example.com'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['geodatabases'] },
          ],
        },
        validations: [
          {
            expression: `!(object.metadata.namespace == '${namespace}' && object.metadata.name == '${name}')`,
            message: 'frozen by e2e policy',
          },
        ],
      },
    } as any);
    await objects.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policyName },
      spec: { policyName, validationActions: ['Deny'] },
    } as any);
    const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
    const probeUpdate = async () => {
      const current = await customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name });
      return customObjects
        .replaceNamespacedCustomObject({ ...geoDatabases, namespace, name, body: current, dryRun: 'All' })
        .then(
          () => 'accepted',
          (error: { code?: number }) => (error.code === 422 ? 'refused' : Promise.reject(error)),
        );
    };
    const { eventually } = await import('../../src/local-loop/eventually.ts');
    await eventually('the freeze policy to refuse updates', async () =>
      (await probeUpdate()) === 'refused' ? true : undefined,
    );
    return {
      thaw: async () => {
        const admission = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
        await admission.deleteValidatingAdmissionPolicyBinding({ name: policyName });
        await admission.deleteValidatingAdmissionPolicy({ name: policyName });
        await eventually('the freeze policy to be gone', async () =>
          (await probeUpdate()) === 'accepted' ? true : undefined,
        );
      },
    };
  }

  it('says in one line, with exit 2, when the CRD does not exist, the API server cannot be reached or refuses the credentials', async () => {
    const missing = await runMigrate([...kubeconfig, '--resource', 'nothings.example.com']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(
      /^crdgate migrate: no CustomResourceDefinition named nothings.example.com at https:\/\/127\.0\.0\.1:\d+\n$/,
    );

    const dir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-migrate-'));
    const closed = await findFreePort();
    const unreachable = join(dir, 'kubeconfig');
    await writeFile(
      unreachable,
      (await readFile(cp.kubeconfigPath, 'utf8')).replace(
        /server: https:\/\/127\.0\.0\.1:\d+/,
        `server: https://127.0.0.1:${closed}`,
      ),
    );
    const down = await runMigrate(['--kubeconfig', unreachable, '--retries', '0']);
    const stranger = join(dir, 'stranger');
    const admin = parse(await readFile(cp.kubeconfigPath, 'utf8'));
    await writeFile(
      stranger,
      stringify({ ...admin, users: [{ name: 'admin', user: { token: 'not-a-token-anyone-issued' } }] }),
    );
    const refused = await runMigrate(['--kubeconfig', stranger]);
    await rm(dir, { recursive: true, force: true });
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toMatch(
      /^crdgate migrate: the API server at https:\/\/127\.0\.0\.1:\d+ does not accept the credentials: Unauthorized\n$/,
    );
    expect(down).toMatchObject({ code: 2, stdout: '' });
    expect(down.stderr).toMatch(
      new RegExp(
        `^crdgate migrate: cannot reach the API server at https://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED.*\\n$`,
      ),
    );
  });
});
