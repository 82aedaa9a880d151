import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { cacheClusterContract, type CacheClusterOptions } from '../../src/admission/cache-cluster.fixture.ts';
import { createContractRegistry } from '../../src/contract/registry.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { startTestServer, type TestServer } from '../integration/support/test-server.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { cacheClusterModule } from './support/cache-cluster-module.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { readEtcdPrefix } from './support/etcd-raw.ts';
import { kubectl, waitEstablished, type KubectlResult } from './support/kubectl.ts';

// The last steps of docs/migration.md's runbook on the CacheCluster of issue 56, a kind in production at v1alpha1
// that gained v1: objects stored in both, `crdgate migrate` (a process, as the Job runs it), storedVersions trimmed,
// v1alpha1 unserved, then the revision without v1alpha1 rendered by `crdgate manifests` and applied as
// docs/deploying.md installs (kubectl apply --server-side) over a CRD whose caBundle another field manager injected,
// as cert-manager's cainjector and `crdgate serve --manage-certs` do. `crdgate check --old-contract --from-cluster`
// refuses the retirement before the migration, naming it, and passes it after; the API server agrees both times.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

/** The contract's revisions, in the runbook's order: stored in v1alpha1, stored in v1, v1alpha1 unserved, gone. */
const revisions = {
  stored: { storage: 'v1alpha1' },
  moved: {},
  unserved: { v1alpha1: 'unserved' },
  retired: { v1alpha1: 'retired' },
} as const satisfies Record<string, CacheClusterOptions>;
type Revision = keyof typeof revisions;

describe.skipIf(!controlPlane)('retiring v1alpha1 of a CacheCluster stored in it, as the runbook does it', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const runId = randomUUID().slice(0, 8);
  const group = `retire${runId}.cache.example.com`;
  const resource = `cacheclusters.${group}`;
  const namespace = `retire-${runId}`;
  let dir = '';
  let server: TestServer | undefined;
  const module = (revision: Revision) => join(dir, `${revision}.ts`);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-retire-'));
    for (const [revision, options] of Object.entries(revisions)) {
      await writeFile(module(revision as Revision), cacheClusterModule({ group, ...options }));
    }
    // crdgate's conversion webhook: v1alpha1 and v1 convert the same way in every revision that has both.
    server = await startTestServer({ registry: createContractRegistry([cacheClusterContract({ group })]) });
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
  });

  afterAll(async () => {
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    await kubectl(cp, ['delete', 'crd', resource, '--wait=false', '--ignore-not-found']);
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The CRD of a revision as `crdgate manifests --contract MODULE` renders it (the webhooks by URL, no caBundle). */
  async function renderedCrd(revision: Revision): Promise<string> {
    const rendered = await crdgate(dir, 'manifests', '--contract', module(revision), '--url', serverUrl());
    expect(rendered.code, rendered.stderr).toBe(0);
    const crd = parseAllDocuments(rendered.stdout)
      .map((document) => document.toJS() as { kind?: string } | null)
      .find((manifest) => manifest?.kind === 'CustomResourceDefinition');
    const file = join(dir, `${revision}.crd.yaml`);
    await writeFile(file, stringify(crd));
    return file;
  }

  const serverUrl = () => `https://127.0.0.1:${server!.port}`;
  const apply = async (revision: Revision): Promise<KubectlResult> =>
    kubectl(cp, ['apply', '--server-side', '-f', await renderedCrd(revision)]);

  /** The caBundle written by a field manager of its own, with a JSON patch, as an injector writes it. */
  async function injectCaBundle(): Promise<void> {
    const patch = [
      { op: 'test', path: '/spec/conversion/strategy', value: 'Webhook' },
      { op: 'add', path: '/spec/conversion/webhook/clientConfig/caBundle', value: server!.ca.toString('base64') },
    ];
    const injected = await kubectl(cp, [
      'patch',
      'crd',
      resource,
      '--type=json',
      '--field-manager=ca-injector',
      '-p',
      JSON.stringify(patch),
    ]);
    expect(injected.exitCode, injected.stderr).toBe(0);
  }

  /** docs/migration.md, step 7: the conversion webhook taken out of the CRD, only while storedVersions is [v1]. */
  const dropConversionWebhook = () =>
    kubectl(cp, [
      'patch',
      'crd',
      resource,
      '--type=json',
      '-p',
      '[{"op":"test","path":"/status/storedVersions","value":["v1"]},{"op":"replace","path":"/spec/conversion","value":{"strategy":"None"}}]',
    ]);
  const conversion = async () =>
    JSON.parse((await kubectl(cp, ['get', 'crd', resource, '-o', 'jsonpath={.spec.conversion}'])).stdout) as unknown;

  const storedVersions = async () =>
    JSON.parse(
      (await kubectl(cp, ['get', 'crd', resource, '-o', 'jsonpath={.status.storedVersions}'])).stdout,
    ) as string[];

  /** The apiVersion each CacheCluster of the namespace is stored in, as etcd holds it, by name. */
  async function storedIn(): Promise<Record<string, string>> {
    const entries = await readEtcdPrefix(cp.etcdUrl, `/registry/${group}/cacheclusters/${namespace}/`);
    return Object.fromEntries(
      entries.map((entry) => [
        entry.key.slice(entry.key.lastIndexOf('/') + 1),
        (JSON.parse(entry.value.toString('utf8')) as { apiVersion: string }).apiVersion,
      ]),
    );
  }

  /** Objects written by kubectl apply --server-side in one version, so their managedFields are recorded in it. */
  async function applyObjects(version: 'v1alpha1' | 'v1', names: string[]): Promise<void> {
    const spec =
      version === 'v1' ? { memory: '2Gi', replicas: 3, tls: { enabled: true } } : { memoryMB: 512, nodes: 2 };
    const items = names.map((name) => ({
      apiVersion: `${group}/${version}`,
      kind: 'CacheCluster',
      metadata: { name, namespace },
      spec,
    }));
    const file = join(dir, `objects-${version}.yaml`);
    await writeFile(file, stringify({ apiVersion: 'v1', kind: 'List', items }));
    const applied = await kubectl(cp, ['apply', '--server-side', '-f', file]);
    expect(applied.exitCode, applied.stderr).toBe(0);
  }

  const check = (...args: string[]) =>
    crdgate(dir, 'check', '--contract', module('retired'), '--old-contract', module('unserved'), ...args);
  const fromCluster = ['--from-cluster', '--kubeconfig', cp.kubeconfigPath];

  it('stores objects in v1alpha1, then in v1 once v1 is the storage version', async () => {
    const first = await apply('stored');
    expect(first.exitCode, first.stderr).toBe(0);
    expect((await waitEstablished(cp, resource)).exitCode).toBe(0);
    await injectCaBundle();
    await applyObjects('v1alpha1', ['old-a', 'old-b']);

    const moved = await apply('moved');
    expect(moved.exitCode, moved.stderr).toBe(0);
    // The API server takes the new storage version in a moment after the update: a probe, created and deleted, shows when.
    let probes = 0;
    await eventually('new objects to be stored in v1', async () => {
      const probe = `probe-${(probes += 1)}`;
      await applyObjects('v1', [probe]);
      const stored = (await storedIn())[probe];
      const deleted = await kubectl(cp, ['delete', `cacheclusters.${group}`, probe, '-n', namespace]);
      expect(deleted.exitCode, deleted.stderr).toBe(0);
      return stored === `${group}/v1` ? true : undefined;
    });
    await applyObjects('v1', ['new-a', 'new-b']);
    expect(await storedIn()).toEqual({
      'old-a': `${group}/v1alpha1`,
      'old-b': `${group}/v1alpha1`,
      'new-a': `${group}/v1`,
      'new-b': `${group}/v1`,
    });
    expect(await storedVersions()).toEqual(['v1alpha1', 'v1']);
  });

  it('refuses the retirement while objects are stored in v1alpha1: the revision check names the migration, the API server refuses the CRD', async () => {
    // Without the cluster, nothing says v1alpha1 still holds objects: the removal of a version no longer served is a warning.
    const offline = await check();
    expect(offline.code, offline.stdout).toBe(0);
    expect(offline.stdout).toContain('warning unservedVersionRemoval (v1alpha1)');

    const checked = await check(...fromCluster);
    expect(checked.code, checked.stdout + checked.stderr).toBe(1);
    expect(checked.stdout).toContain(
      'error storedVersionRemoval (v1alpha1): version v1alpha1 removed while objects may be stored in it ' +
        '(status.storedVersions lists v1alpha1, v1): the API server refuses this update; ' +
        `run \`crdgate migrate --resource ${resource}\``,
    );

    const refused = await apply('retired');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(
      'status.storedVersions[0]: Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version',
    );
    // The runbook's patch that takes the conversion webhook out holds only once storedVersions is [v1].
    expect((await dropConversionWebhook()).exitCode).not.toBe(0);
    expect(await conversion()).toMatchObject({ strategy: 'Webhook' });
  });

  it('migrates every object to v1 with crdgate migrate, which trims storedVersions, then unserves v1alpha1', async () => {
    const migrated = await crdgate(dir, 'migrate', '--resource', resource, '--kubeconfig', cp.kubeconfigPath);
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(Object.values(await storedIn())).toEqual(Array(4).fill(`${group}/v1`));
    expect(await storedVersions()).toEqual(['v1']);

    const unserved = await apply('unserved');
    expect(unserved.exitCode, unserved.stderr).toBe(0);
    // Step 6: once more, for the managedFields the v1alpha1 client's applies recorded in v1alpha1.
    const mended = await crdgate(dir, 'migrate', '--resource', resource, '--kubeconfig', cp.kubeconfigPath);
    expect(mended.code, mended.stdout + mended.stderr).toBe(0);
    expect(mended.stdout).toMatch(/managedFields +2 entries in versions no longer served dropped from 2 objects/);
  });

  it('passes the retirement once storedVersions is [v1], and the rendered CRD applies over the previous one', async () => {
    const checked = await check(...fromCluster);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain('warning unservedVersionRemoval (v1alpha1): version v1alpha1 removed');
    expect(checked.stdout).not.toContain('conversionWebhookRemoved');

    // The caBundle is the injector's field: server-side apply takes out what kubectl applied of the webhook, and
    // leaves a webhook stanza with strategy None, which the API server refuses.
    const refused = await apply('retired');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
    );
    const dropped = await dropConversionWebhook();
    expect(dropped.exitCode, dropped.stderr).toBe(0);
    const retired = await apply('retired');
    expect(retired.exitCode, retired.stderr).toBe(0);
    const crd = JSON.parse((await kubectl(cp, ['get', 'crd', resource, '-o', 'json'])).stdout) as {
      spec: { versions: { name: string }[]; conversion: unknown };
    };
    expect(crd.spec.versions.map((version) => version.name)).toEqual(['v1']);
    expect(crd.spec.conversion).toEqual({ strategy: 'None' });
    // Every object is read in v1, and written by server-side apply again (no managedFields entry names v1alpha1).
    await applyObjects('v1', ['old-a', 'new-a']);
    const gone = await kubectl(cp, ['get', `cacheclusters.v1alpha1.${group}`, '-n', namespace]);
    expect(gone.exitCode).not.toBe(0);
  });
});
