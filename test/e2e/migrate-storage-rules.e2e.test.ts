import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventually } from '../../src/local-loop/eventually.ts';
import { createKubeApi, KubeApiError, type KubeApi } from '../../src/kube/kube-api.ts';
import type { MigrationReport, RuleCause } from '../../src/migrate/migration-report.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { crdNotBeingDeleted, kubectl, waitEstablished } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const group = 'storagerules.e2e.crdgate.example.com';
const crdName = `widgets.${group}`;
const fields = { size: { type: 'integer', maximum: 100 }, colour: { type: 'string' } };
const looseSpec = { type: 'object', properties: fields };
/** The revision's storage version: a lower maximum and an added CEL rule. */
const tightSpec = {
  type: 'object',
  properties: { ...fields, size: { type: 'integer', maximum: 10 } },
  'x-kubernetes-validations': [{ rule: "self.colour != 'red'", message: 'red is retired' }],
};
type Version = { name: string; storage: boolean; spec: object };
const widgetCrd = (versions: Version[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: versions.map(({ name, storage, spec }) => ({
      name,
      served: true,
      storage,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
    })),
  },
});
/** Valid under the first revision; w-1 and w-3 hold more than 10, w-2 and w-3 are red. */
const widgets: Array<[string, { size: number; colour: string }]> = [
  ['w-0', { size: 5, colour: 'blue' }],
  ['w-1', { size: 50, colour: 'blue' }],
  ['w-2', { size: 8, colour: 'red' }],
  ['w-3', { size: 70, colour: 'red' }],
  ['w-4', { size: 3, colour: 'green' }],
];

/**
 * `crdgate migrate --dry-run` (the CLI, as a user runs it) on the suite's kube-apiserver: objects stored valid under
 * v1alpha1, then a revision whose new storage version v1 lowers a maximum and adds a CEL rule. The dry run lists the
 * objects that break v1's rules as they stand; the API server is the oracle (a server-side dry-run create of each
 * spec under another name is refused at the same fields, with the same words, for exactly those objects). Then the
 * real run migrates them all (ratcheting spares a write that leaves a field), and an edit of a broken field is
 * refused.
 */
describe.skipIf(!controlPlane)(
  'crdgate migrate --dry-run and the storage version rules, through kube-apiserver',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const namespace = `crdgate-e2e-rules-${randomUUID().slice(0, 8)}`;
    const collection = (version: string) => `/apis/${group}/${version}/namespaces/${namespace}/widgets`;
    let work: string;
    let admin: KubeApi;

    const apply = async (file: string, object: unknown) => {
      await writeFile(join(work, file), stringify(object));
      const applied = await kubectl(cp, ['apply', '--server-side', '--force-conflicts', '-f', join(work, file)]);
      expect(applied.exitCode, applied.stderr).toBe(0);
    };
    const migrate = (...args: string[]) =>
      crdgate(work, 'migrate', '--resource', crdName, '--kubeconfig', cp.kubeconfigPath, ...args);
    /** What the API server answers to creating this spec in v1 under another name, without storing it: its causes. */
    const refusalOf = async (spec: object): Promise<RuleCause[]> => {
      const body = {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: `oracle-${randomUUID().slice(0, 8)}` },
        spec,
      };
      try {
        await admin.request('POST', collection('v1'), { query: { dryRun: 'All' }, body });
        return [];
      } catch (error) {
        if (!(error instanceof KubeApiError) || error.code !== 422) throw error;
        return (error.status.details?.causes ?? [])
          .map(({ field, message }) => ({ field: field ?? '', message: message ?? '' }))
          .sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
      }
    };

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'crdgate-e2e-rules-'));
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      admin = createKubeApi(kubeConfig, { timeoutMs: 30_000 });
      await crdNotBeingDeleted(cp, crdName);
      await apply('crd-v1alpha1.yaml', widgetCrd([{ name: 'v1alpha1', storage: true, spec: looseSpec }]));
      expect((await waitEstablished(cp, crdName)).exitCode).toBe(0);
      expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
      for (const [name, spec] of widgets) {
        const body = { apiVersion: `${group}/v1alpha1`, kind: 'Widget', metadata: { name }, spec };
        await eventually(`${name} to be created`, () =>
          admin.request('POST', collection('v1alpha1'), { body }).then(() => true),
        );
      }
      await apply(
        'crd-v1.yaml',
        widgetCrd([
          { name: 'v1alpha1', storage: false, spec: looseSpec },
          { name: 'v1', storage: true, spec: tightSpec },
        ]),
      );
      // The revision is in force once v1 refuses a size over 10; lists in v1 answer once the watch cache is rebuilt.
      await eventually('v1 to refuse a size over 10', async () =>
        (await refusalOf({ size: 11, colour: 'blue' }).catch(() => [])).length > 0 ? true : undefined,
      );
      await eventually('lists in v1 to be served', () => admin.request('GET', collection('v1')).then(() => true));
    }, 60_000);

    afterAll(async () => {
      await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
      await kubectl(cp, ['delete', 'crd', crdName, '--wait=false', '--ignore-not-found']);
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('lists exactly the objects the API server refuses at those fields; they migrate, and an edit of the field is refused', async () => {
      const dryRun = await migrate('--dry-run', '--output', 'json');
      expect(dryRun.code, dryRun.stderr).toBe(0);
      const report = JSON.parse(dryRun.stdout) as MigrationReport;
      // The dry run's writes leave every field as it is: ratcheting lets them all through.
      expect(report).toMatchObject({ dryRun: true, outcome: 'dry-run', objects: { seen: 5, failed: 0 } });
      expect(report.storageRules).toMatchObject({ checked: true, judged: 5, breaking: 3 });
      expect(report.storageRules.objects.map(({ name, causes }) => [name, causes.map((cause) => cause.field)])).toEqual(
        [
          ['w-1', ['spec.size']],
          ['w-2', ['spec']],
          ['w-3', ['spec', 'spec.size']],
        ],
      );
      const oracle = [];
      for (const [name, spec] of widgets) {
        const causes = await refusalOf(spec);
        if (causes.length > 0) oracle.push({ namespace, name, causes, moreCauses: 0 });
      }
      expect(report.storageRules.objects).toEqual(oracle);

      const text = await migrate('--dry-run');
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(
        "  storage rules     3 of the 5 objects judged break v1's schema or rules as they stand: each migrates",
      );
      expect(text.stdout).toContain(
        `  objects breaking v1's rules (3):\n    ${namespace}/w-1:\n      spec.size: ${oracle[0]!.causes[0]!.message}\n`,
      );

      const real = await migrate('--output', 'json');
      expect(real.code, real.stderr).toBe(0);
      expect(JSON.parse(real.stdout)).toMatchObject({ outcome: 'migrated', objects: { seen: 5, failed: 0 } });
      const path = `${collection('v1')}/w-1`;
      const patch = (spec: object) =>
        admin.request('PATCH', path, { body: { spec }, contentType: 'application/merge-patch+json' });
      // A write that leaves spec.size as it is passes; one that changes it is refused at that field.
      await patch({ colour: 'green' });
      const refused = await patch({ size: 60 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(KubeApiError);
      expect((refused as KubeApiError).status.details?.causes?.map((cause) => cause.field)).toEqual(['spec.size']);
    }, 60_000);
  },
);
