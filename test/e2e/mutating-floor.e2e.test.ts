import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractDefaulter } from '../../src/contract/defaults/contract-defaulter.ts';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { compileContractDefaults } from '../../src/policy/compile-defaults.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { refusal } from './support/api-error.ts';
import { metricSum, scrapeApiServer } from './support/api-server-metrics.ts';
import type { CrdgateProcess } from './support/crdgate-restartable-process.ts';
import { removeGeoDatabaseInstall, renderGeoDatabaseInstall, type RenderedInstall } from './support/floor-install.ts';
import { geoDatabases, invalidGeoDatabase } from './support/geodatabases.ts';
import { kubectl, waitEstablished } from './support/kubectl.ts';

// The policy floor's defaults, proven by difference through a real API server: the same GeoDatabases written
//   1. through crdgate's mutating webhook alone (the base: no policy),
//   2. through the MutatingAdmissionPolicy alone (overlays/policy-floor with crdgate SIGKILLed), and
//   3. through both (the overlay with crdgate up: the policy first, then the webhook),
// end stored with the same spec and labels, on CREATE and on an UPDATE that takes defaulted fields away. Every
// GeoDatabase default compiles (`crdgate fsa --coverage` says so), so every one is compared; and the objects stored
// are what the contract's defaulter makes of them, so the equality is not that of three writes that defaulted nothing.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const crdName = 'geodatabases.geo.example.com';
const contract = geoDatabaseContract();
const defaulter = contractDefaulter(contract)!;
const mode = { webhook: 'w', policy: 'p', both: 'b' } as const;
type Mode = keyof typeof mode;

/** Specs the webhook admits (so that it defaults them), each leaving a different set of defaults to fill. */
function specs(): { spec: Record<string, unknown>; labels?: Record<string, string> }[] {
  const caches = [
    undefined,
    [],
    [{ name: 'tiles', memory: '1Gi' }],
    [
      { name: 'a', memory: '1Gi', version: '7.4' },
      { name: 'b', memory: '2Gi', replicas: 2 },
      { name: 'c', memory: '64Mi' },
    ],
  ];
  const labels: (Record<string, string> | undefined)[] = [
    undefined,
    { team: 'maps' },
    { 'geo.example.com/postgres-major': '14', team: 'geo' },
  ];
  const rows: { spec: Record<string, unknown>; labels?: Record<string, string> }[] = [];
  for (const readReplicas of [undefined, 2]) {
    for (const [index, cacheList] of caches.entries()) {
      for (const version of ['13.2', '16.4', '17.0']) {
        const label = labels[(index + rows.length) % labels.length];
        rows.push({
          spec: {
            postgres: { version, postgis: '3.5.1' },
            storage: { size: '20Gi' },
            ...(readReplicas === undefined ? {} : { readReplicas }),
            ...(cacheList === undefined ? {} : { caches: cacheList }),
          },
          ...(label === undefined ? {} : { labels: label }),
        });
      }
    }
  }
  // The largest the schema allows where the defaults do most: every cache (maxItems) without a version or replicas,
  // names and the release at their maxLength. Its writes count with the others: the policy's mutations stay within
  // the API server's CEL budgets on it (test/e2e/policy-budgets.e2e.test.ts estimates them statically).
  const longest = (index: number) => `c${index}-`.padEnd(63, 'x');
  rows.push({
    spec: {
      postgres: { version: '16.1234567890123', postgis: '3.5.1' },
      storage: { size: '20Gi' },
      caches: Array.from({ length: 8 }, (_, index) => ({ name: longest(index), memory: '1Gi' })),
    },
    labels: { 'geo.example.com/postgres-major': '1'.repeat(63) },
  });
  return rows;
}

/** What the three modes must agree on: what defaults touch, and nothing the API server sets itself. */
const defaulted = (object: KubeObject) => ({ spec: object.spec, labels: object.metadata?.labels });

describe.skipIf(!controlPlane)(
  'overlays/policy-floor: the MutatingAdmissionPolicy stores what the mutating webhook stores',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const id = randomUUID().slice(0, 8);
    const installName = `defaults-${id}`;
    const namespace = `crdgate-e2e-mutating-floor-${id}`;
    const policyName = `${installName}.${crdName}`;
    const rows = specs();
    const stored: Record<Mode, KubeObject[]> = { webhook: [], policy: [], both: [] };
    const updated: Record<Mode, KubeObject[]> = { webhook: [], policy: [], both: [] };
    let install: RenderedInstall | undefined;
    let tree: string;
    let gate: CrdgateProcess | undefined;
    let customObjects: CustomObjectsApi;
    let mutationChecks: { before: string; after: string } | undefined;

    const objectFor = (row: (typeof rows)[number], name: string): KubeObject => ({
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name, namespace, ...(row.labels ? { labels: row.labels } : {}) },
      spec: row.spec,
    });
    const create = (body: KubeObject, dryRun = false): Promise<KubeObject> =>
      customObjects.createNamespacedCustomObject({
        ...geoDatabases,
        namespace,
        body,
        ...(dryRun ? { dryRun: 'All' } : {}),
      });
    // Takes away what defaults filled in, and makes the derived label stale: each mode must fill them in again.
    const takeDefaultsAway = (name: string): Promise<KubeObject> =>
      customObjects.patchNamespacedCustomObject(
        {
          ...geoDatabases,
          namespace,
          name,
          body: {
            metadata: { labels: { 'geo.example.com/postgres-major': '9' } },
            spec: { readReplicas: null, caches: [{ name: 'late', memory: '128Mi' }] },
          },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    const writeAll = async (writing: Mode) => {
      for (const [index, row] of rows.entries())
        stored[writing].push(await create(objectFor(row, `${mode[writing]}-${index}`)));
      for (const [index, row] of rows.entries())
        if (row.spec['readReplicas'] === undefined)
          updated[writing].push(await takeDefaultsAway(`${mode[writing]}-${index}`));
    };

    beforeAll(async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
      install = await renderGeoDatabaseInstall(cp, installName, namespace);
      ({ tree, gate } = install);
      expect(install.stderr).toContain(
        'policy floor for GeoDatabase: the API server enforces 16 of 16 change kinds and 1 of 1 deletion rules, refuses unseen changes of 1 of 6 fields an older version cannot show, and sets 5 of 5 defaults\n',
      );
    });

    afterAll(async () => {
      if (!controlPlane) return;
      const crdDeleted = await removeGeoDatabaseInstall(cp, installName, namespace, install ?? {});
      expect(crdDeleted.exitCode, crdDeleted.stderr).toBe(0);
    });

    it('1. the base, crdgate up: the mutating webhook alone defaults every object', { timeout: 300_000 }, async () => {
      const applied = await kubectl(cp, ['apply', '--server-side', '-k', tree]);
      expect(applied.exitCode, applied.stderr).toBe(0);
      expect((await waitEstablished(cp, crdName)).exitCode).toBe(0);
      const policies = await kubectl(cp, ['get', 'mutatingadmissionpolicies', '-o', 'name']);
      expect(policies.stdout).not.toContain(policyName);
      await eventually('the mutating webhook to default a GeoDatabase', async () =>
        (await create(objectFor(rows[0]!, 'probe-webhook'), true).catch(() => undefined))?.spec?.[
          'readReplicas' as never
        ] === 0
          ? true
          : undefined,
      );
      await writeAll('webhook');
      // Not a comparison of objects nothing defaulted: each is stored as the contract's defaulter makes it.
      expect(stored.webhook.map(defaulted)).toEqual(
        rows.map((row, index) => defaulted(defaulter(objectFor(row, `w-${index}`)))),
      );
    });

    it(
      '2. overlays/policy-floor, crdgate SIGKILLed: the MutatingAdmissionPolicy alone stores the same objects',
      { timeout: 300_000 },
      async () => {
        const applied = await kubectl(cp, ['apply', '--server-side', '-k', join(tree, 'overlays', 'policy-floor')]);
        expect(applied.exitCode, applied.stderr).toBe(0);
        const policy = await kubectl(cp, ['get', `mutatingadmissionpolicy/${policyName}`, '-o', 'json']);
        expect(policy.exitCode, policy.stderr).toBe(0);
        expect(JSON.parse(policy.stdout).spec).toMatchObject({
          failurePolicy: 'Fail',
          reinvocationPolicy: 'Never',
          mutations: compileContractDefaults(contract).mutations,
        });
        expect((await gate!.kill()).signal).toBe('SIGKILL');
        // Only the policy can set the label now: a dry run that comes back with it says the policy is in effect.
        await eventually('the MutatingAdmissionPolicy to default a GeoDatabase', async () =>
          (await create(objectFor(rows[0]!, 'probe-policy'), true).catch(() => undefined))?.metadata?.labels?.[
            'geo.example.com/postgres-major'
          ] === '13'
            ? true
            : undefined,
        );
        const before = await scrapeApiServer(cp);
        await writeAll('policy');
        mutationChecks = { before, after: await scrapeApiServer(cp) };
        expect(stored.policy.map(defaulted)).toEqual(stored.webhook.map(defaulted));
        expect(updated.policy.map(defaulted)).toEqual(updated.webhook.map(defaulted));
        // And crdgate was truly out of it: what only its invariants check (a major release it does not support, a cache
        // too big) went through, defaulted by the policy.
        expect((await create(invalidGeoDatabase(namespace, 'unchecked'))).spec).toMatchObject({
          postgres: { version: '18.1' },
          caches: [{ name: 'tiles-1' }, { name: 'big', memory: '128Gi' }],
          readReplicas: 0,
        });
      },
    );

    it('the API server counted every mutation of the policy, none of them failing', () => {
      const { before, after } = mutationChecks!;
      const count = (errorType: string) =>
        metricSum(after, 'apiserver_mutating_admission_policy_check_total', {
          policy: policyName,
          error_type: errorType,
        }) -
        metricSum(before, 'apiserver_mutating_admission_policy_check_total', {
          policy: policyName,
          error_type: errorType,
        });
      const writes = rows.length + updated.policy.length;
      expect(count('no_error')).toBe(writes * compileContractDefaults(contract).mutations.length);
      for (const errorType of ['compile_error', 'invalid_error', 'out_of_budget'])
        expect(count(errorType), errorType).toBe(0);
    });

    it(
      '3. overlays/policy-floor, crdgate up again: the policy first, then the webhook, store the same objects',
      { timeout: 300_000 },
      async () => {
        await gate!.start();
        await eventually('the validating webhook to answer again', async () => {
          const status = await refusal(create(invalidGeoDatabase(namespace, 'probe-invalid'), true)).catch(
            () => undefined,
          );
          return status?.message.includes('admission webhook') ? true : undefined;
        });
        await writeAll('both');
        expect(stored.both.map(defaulted)).toEqual(stored.webhook.map(defaulted));
        expect(updated.both.map(defaulted)).toEqual(updated.webhook.map(defaulted));
      },
    );
  },
);
