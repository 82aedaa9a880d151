import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/migrate/shard.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import { sharedControlPlane, useMigrationScene } from './support/migration-scene.ts';
import { geoDatabases } from './support/geodatabases.ts';
import { spawnMigrate } from './support/migrate-process.ts';
import {
  readContents,
  resource,
  runMigrate,
  storedApiVersion,
  storedGeoDatabases,
  storedVersions,
} from './support/storage-migration.ts';

describe.skipIf(!sharedControlPlane)('crdgate migrate --shard I/N --record NS/NAME through the real API server', () => {
  const { cp, scene, kubeconfig, objectsToMigrate, storedIn } = useMigrationScene('crdgate-e2e-migrate-shards');
  const keyOf = (entry: { key: string }) => entry.key.replace('/registry/geo.example.com/geodatabases/', '');
  const shardOfKey = (key: string, count: number) => {
    const [namespace, name] = key.split('/') as [string, string];
    return shardOf({ namespace, name }, count);
  };
  const readRecord = async (name: string) =>
    (await scene().kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: scene().namespace, name }))
      .data ?? {};
  const crdGeneration = async () =>
    (await scene().kubeConfig.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: resource }))
      .metadata!.generation!;

  /** Objects stored in v1beta1 while v1 is the storage version, and what they hold, read through v1. */
  async function checkedObjectsToMigrate(prefix: string, namespaceCount: number, perNamespace: number) {
    const namespaces = await objectsToMigrate(prefix, namespaceCount, perNamespace, { inFlight: 16 });
    const stored = await storedGeoDatabases(cp.etcdUrl, namespaces);
    expect(stored).toHaveLength(namespaceCount * perNamespace);
    expect(new Set(stored.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1beta1']));
    return { namespaces, contents: await readContents(scene().kubeConfig, namespaces) };
  }

  it('2,000 objects over 4 shards at once; one SIGKILLed mid-run holds the trim back until its index is rerun', async () => {
    const { kubeConfig } = scene();
    const { namespaces, contents } = await checkedObjectsToMigrate('mig-shards', 4, 500);
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1beta1', 'v1']));
    const generation = await crdGeneration();
    const record = 'shards-of-4';
    // As the rendered install ships it: empty, applied server-side (the shards update it; the other test has them create it).
    const emptyRecord = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: record, namespace: scene().namespace },
    };
    await serverSideApply(kubeConfig, [emptyRecord]);
    const shardArgs = (index: number) => [
      ...kubeconfig,
      '--shard',
      `${index}/4`,
      '--record',
      `${scene().namespace}/${record}`,
    ];

    // Shard 1 is held to 20 writes a second, so that it is surely mid-run when it is killed.
    const killed = 1;
    const runs = [0, 1, 2, 3].map((index) =>
      spawnMigrate([...shardArgs(index), '--output', 'json', ...(index === killed ? ['--qps', '20'] : [])]),
    );
    // Its progress lines count the objects it has written itself.
    const wroteSome = await runs[killed]!.waitForStderr(/^progress: .*, [1-9]\d+ of them this shard's/m);
    expect(wroteSome, runs[killed]!.stdout() + runs[killed]!.stderr()).toBe(true);
    runs[killed]!.child.kill('SIGKILL');
    const exits = await Promise.all(runs.map((run) => run.exited));

    expect(exits[killed]).toEqual({ code: null, signal: 'SIGKILL' });
    let written = 0;
    for (const index of [0, 2, 3]) {
      const run = runs[index]!;
      expect(exits[index]!.code, run.stdout() + run.stderr()).toBe(0);
      const report = run.report();
      expect(report).toMatchObject({
        outcome: 'shard-done',
        generation,
        objects: { failed: 0, gone: 0 },
        storedVersions: { after: report.storedVersions.before },
        shard: {
          index,
          count: 4,
          listed: 2000,
          recorded: 'succeeded',
          shards: { missing: expect.arrayContaining([killed]), failed: [], stale: [] },
        },
      });
      expect(report.storedVersions.why).toMatch(/^not trimmed: waiting for shards? [\d, ]*1/);
      written += report.objects.seen;
    }
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1beta1', 'v1']));
    expect(Object.keys(await readRecord(record)).sort()).toEqual(['shard-0-of-4', 'shard-2-of-4', 'shard-3-of-4']);
    // Applying the install again meanwhile keeps what the shards recorded.
    await serverSideApply(kubeConfig, [emptyRecord]);
    expect(Object.keys(await readRecord(record)).sort()).toEqual(['shard-0-of-4', 'shard-2-of-4', 'shard-3-of-4']);

    // Each finished shard wrote exactly its own objects; the killed one some of its own, not all.
    const afterKill = await storedGeoDatabases(cp.etcdUrl, namespaces);
    const killedShard = afterKill.filter((entry) => shardOfKey(keyOf(entry), 4) === killed);
    expect(written).toBe(afterKill.length - killedShard.length);
    for (const entry of afterKill) {
      if (shardOfKey(keyOf(entry), 4) !== killed)
        expect(storedApiVersion(entry), keyOf(entry)).toBe('geo.example.com/v1');
    }
    const killedDone = killedShard.filter((entry) => storedApiVersion(entry) === 'geo.example.com/v1').length;
    expect(killedDone).toBeGreaterThanOrEqual(10);
    expect(killedDone).toBeLessThan(killedShard.length);

    const rerun = spawnMigrate(shardArgs(killed));
    const { code } = await rerun.exited;
    expect(code, rerun.stdout() + rerun.stderr()).toBe(0);
    expect(rerun.stdout()).toMatch(/^migrated: every geodatabases\.geo\.example\.com object is stored in v1\n/);
    expect(rerun.stdout()).toContain(
      `  shard             1/4 by namespace/name hash: ${killedShard.length} of the 2000 objects listed are its own; recorded "succeeded" in the ConfigMap ${scene().namespace}/${record}\n`,
    );
    expect(rerun.stdout()).toMatch(
      new RegExp(
        `storedVersions +\\[(v1beta1, v1|v1, v1beta1)\\] -> \\[v1\\]: trimmed: every shard \\(4\\) succeeded for generation ${generation}, storage version v1\\n`,
      ),
    );
    expect(rerun.stdout()).toMatch(
      new RegExp(
        `objects +${killedShard.length} seen: ${killedShard.length - killedDone} rewritten, ${killedDone} already current, 0 gone, 0 failed`,
      ),
    );
    expect(await storedVersions(kubeConfig)).toEqual(['v1']);

    const storedAfter = await storedGeoDatabases(cp.etcdUrl, namespaces);
    expect(storedAfter).toHaveLength(2000);
    expect(new Set(storedAfter.map(storedApiVersion))).toEqual(new Set(['geo.example.com/v1']));
    expect(await readContents(kubeConfig, namespaces)).toEqual(contents);

    const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
    for (const namespace of namespaces)
      await customObjects.deleteCollectionNamespacedCustomObject({ ...geoDatabases, namespace });
  }, 300_000);

  it('a result recorded for another CRD generation does not count: every shard runs again for the new one', async () => {
    const { kubeConfig } = scene();
    const { namespaces, contents } = await checkedObjectsToMigrate('mig-shards-gen', 1, 40);
    const record = 'shards-of-2';
    const shard = (index: number) =>
      runMigrate([
        ...kubeconfig,
        '--shard',
        `${index}/2`,
        '--record',
        `${scene().namespace}/${record}`,
        '--output',
        'json',
      ]);

    const first = await shard(0);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.report()).toMatchObject({
      outcome: 'shard-done',
      shard: { shards: { succeeded: [0], missing: [1] } },
    });
    const before = first.report().generation;

    // The CRD changes (a printer column; the storage version stays v1), so its generation moves on.
    const changed = structuredClone(scene().gate.crd) as Manifest & {
      spec: { versions: Array<{ name: string; storage: boolean; additionalPrinterColumns?: object[] }> };
    };
    for (const version of changed.spec.versions) {
      version.storage = version.name === 'v1';
      if (version.name === 'v1')
        version.additionalPrinterColumns = [
          ...(version.additionalPrinterColumns ?? []),
          { name: 'E2E', type: 'string', jsonPath: '.metadata.name' },
        ];
    }
    await serverSideApply(kubeConfig, [changed]);
    await eventually('the CRD generation to move on', async () =>
      (await crdGeneration()) > before ? true : undefined,
    );
    const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
    await eventually('lists to be served again', () =>
      customObjects.listClusterCustomObject({ ...geoDatabases }).then(() => true),
    );

    const second = await shard(1);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const waiting = second.report();
    expect(waiting).toMatchObject({
      outcome: 'shard-done',
      generation: before + 1,
      shard: { shards: { succeeded: [1], stale: [0], missing: [], failed: [] } },
    });
    expect(waiting.storedVersions.why).toBe(
      `not trimmed: shard 0 recorded a result for another CRD generation or storage version (run it again); 1 of 2 succeeded for generation ${before + 1}, storage version v1`,
    );
    expect(await storedVersions(kubeConfig)).toEqual(expect.arrayContaining(['v1beta1', 'v1']));

    const again = await shard(0);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.report()).toMatchObject({ outcome: 'migrated', storedVersions: { after: ['v1'] } });
    expect(await storedVersions(kubeConfig)).toEqual(['v1']);
    expect(new Set(await storedIn(namespaces))).toEqual(new Set(['geo.example.com/v1']));
    expect(await readContents(kubeConfig, namespaces)).toEqual(contents);
  }, 180_000);
});
