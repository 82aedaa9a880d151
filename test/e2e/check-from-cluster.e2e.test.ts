import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { createKubeApi, type KubeApi } from '../../src/kube/kube-api.ts';
import { forEachLiveObject, type LiveResource } from '../../src/kube/list-live-objects.ts';
import { LiveReadError } from '../../src/kube/live-read-error.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { kubectl, waitEstablished } from './support/kubectl.ts';
import { writeServiceAccountKubeconfig } from './support/service-account-kubeconfig.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const group = 'fromcluster.e2e.crdgate.example.com';
const crdName = `pipes.${group}`;
const schema = (fields: Record<string, unknown>) => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: fields } } },
});
const fields = { size: { type: 'integer' }, colour: { type: 'string' } };
/** A revision of the CRD: its versions as [name, storage] pairs, each with `fields`. */
const pipeCrd = (versions: Array<[string, boolean]>, versionFields: Record<string, unknown> = fields) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'pipes', singular: 'pipe', kind: 'Pipe', listKind: 'PipeList' },
    versions: versions.map(([name, storage]) => ({ name, served: true, storage, schema: schema(versionFields) })),
  },
});

/**
 * The live-object reader and `crdgate check --from-cluster` on the suite's kube-apiserver: a CRD whose storage
 * version moved (so status.storedVersions holds two versions), 30 objects in two namespaces, and a ServiceAccount
 * that reads them with the ClusterRole `crdgate manifests --crd-reads` renders, and with nothing before it.
 */
describe.skipIf(!controlPlane)('live objects and check --from-cluster through kube-apiserver', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const suffix = randomUUID().slice(0, 8);
  const namespaces = [`crdgate-e2e-live-a-${suffix}`, `crdgate-e2e-live-b-${suffix}`];
  const serviceAccount = 'ci';
  const binding = `crdgate-e2e-live-${suffix}`;
  const installName = `live${suffix}`;
  let work: string;
  let admin: KubeApi;

  const apply = async (file: string, object: unknown) => {
    await writeFile(join(work, file), stringify(object));
    const applied = await kubectl(cp, ['apply', '--server-side', '--force-conflicts', '-f', join(work, file)]);
    expect(applied.exitCode, applied.stderr).toBe(0);
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'crdgate-e2e-live-'));
    // Created with v1alpha1 as the storage version, then moved to v1: storedVersions holds both.
    await apply('crd-v1alpha1.yaml', pipeCrd([['v1alpha1', true]]));
    expect((await waitEstablished(cp, crdName)).exitCode).toBe(0);
    for (const namespace of namespaces)
      expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
    const pipes = (version: string, from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        apiVersion: `${group}/${version}`,
        kind: 'Pipe',
        metadata: { name: `pipe-${from + i}`, namespace: namespaces[(from + i) % 2] },
        spec: { size: from + i, colour: 'red' },
      }));
    await apply('pipes-v1alpha1.yaml', { apiVersion: 'v1', kind: 'List', items: pipes('v1alpha1', 0, 10) });
    await apply(
      'crd-v1.yaml',
      pipeCrd([
        ['v1alpha1', false],
        ['v1', true],
      ]),
    );
    await apply('pipes-v1.yaml', { apiVersion: 'v1', kind: 'List', items: pipes('v1', 10, 20) });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    admin = createKubeApi(kubeConfig, { timeoutMs: 30_000 });
    expect((await kubectl(cp, ['create', 'serviceaccount', serviceAccount, '-n', namespaces[0]!])).exitCode).toBe(0);
    await writeServiceAccountKubeconfig(cp, namespaces[0]!, serviceAccount, join(work, 'ci.kubeconfig'));
  });

  afterAll(async () => {
    await kubectl(cp, ['delete', 'clusterrolebinding', binding, '--ignore-not-found']);
    await kubectl(cp, ['delete', 'clusterrole', `${installName}-crd-reads`, '--ignore-not-found']);
    for (const namespace of namespaces)
      await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    await kubectl(cp, ['delete', 'crd', crdName, '--wait=false', '--ignore-not-found']);
    if (work) await rm(work, { recursive: true, force: true });
  });

  const pipes: LiveResource = { group, version: 'v1', plural: 'pipes' };

  it('lists every object of every namespace a page at a time, and stops at a count bound saying so', async () => {
    const names: string[] = [];
    const pageSizes: number[] = [];
    const onPage = (page: KubeObject[]) => {
      pageSizes.push(page.length);
      names.push(...page.map((object) => `${object.metadata?.namespace}/${object.metadata?.name}`));
    };
    expect(await forEachLiveObject(admin, pipes, onPage, { pageSize: 7, maxObjects: 1000, timeoutMs: 30_000 })).toEqual(
      { complete: true, listed: 30 },
    );
    expect(new Set(names).size).toBe(30);
    expect(pageSizes).toEqual([7, 7, 7, 7, 2]);
    expect(await forEachLiveObject(admin, pipes, () => {}, { pageSize: 7, maxObjects: 10, timeoutMs: 30_000 })).toEqual(
      { complete: false, listed: 10, stoppedBy: 'count' },
    );
  });

  it('compares the tree with the live CRD, whose storedVersions counts: a removed v1alpha1 is a stored version removed', async () => {
    await writeFile(join(work, 'new.yaml'), stringify(pipeCrd([['v1', true]], { size: { type: 'integer' } })));
    const run = await crdgate(
      work,
      'check',
      '-f',
      'new.yaml',
      '--from-cluster',
      '--kubeconfig',
      cp.kubeconfigPath,
      '-o',
      'json',
    );
    expect(run.code, run.stderr).toBe(1);
    const revisions = (
      JSON.parse(run.stdout) as {
        crdRevisions: Array<{
          name: string;
          oldLocation: { file: string };
          findings: Array<{ rule: string; version?: string; path?: string }>;
        }>;
      }
    ).crdRevisions;
    expect(revisions.map((revision) => revision.name)).toEqual([crdName]);
    expect(revisions[0]!.oldLocation.file).toBe(
      `${cp.apiServerUrl.replace(/\/+$/, '')}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
    );
    const found = revisions[0]!.findings.map(({ rule, version, path }) => [rule, version, path]);
    expect(found).toContainEqual(['storedVersionRemoval', 'v1alpha1', undefined]);
    expect(found).toContainEqual(['existingFieldRemoval', 'v1', 'spec.colour']);
    // The same files with --old: without the cluster's storedVersions, v1alpha1 reads as a version nothing is stored in.
    await writeFile(
      join(work, 'old.yaml'),
      stringify(
        pipeCrd([
          ['v1alpha1', false],
          ['v1', true],
        ]),
      ),
    );
    const offline = await crdgate(work, 'check', '-f', 'new.yaml', '--old', 'old.yaml', '-o', 'json');
    const offlineRules = (
      JSON.parse(offline.stdout) as { crdRevisions: Array<{ findings: Array<{ rule: string }> }> }
    ).crdRevisions[0]!.findings.map((f) => f.rule);
    expect(offlineRules).toContain('versionRemoval');
    expect(offlineRules).not.toContain('storedVersionRemoval');
  });

  it('judges every live object of a changed CRD as a stored object, and says so when a bound stops the list', async () => {
    // Both versions kept (storedVersions allows the update), spec.colour gone from both: every Pipe holds a colour.
    await writeFile(
      join(work, 'dropped.yaml'),
      stringify(
        pipeCrd(
          [
            ['v1alpha1', false],
            ['v1', true],
          ],
          { size: { type: 'integer' } },
        ),
      ),
    );
    const run = await crdgate(
      work,
      'check',
      '-f',
      'dropped.yaml',
      '--from-cluster',
      '--kubeconfig',
      cp.kubeconfigPath,
      '-o',
      'json',
    );
    expect(run.code, run.stderr).toBe(1);
    const stored = (
      JSON.parse(run.stdout) as {
        storedObjects: {
          crds: Array<{
            name: string;
            source: string;
            objects: number;
            findings: Array<{ rule: string; count: number }>;
          }>;
        };
      }
    ).storedObjects;
    expect(stored.crds.map(({ name, source, objects }) => ({ name, source, objects }))).toEqual([
      { name: crdName, source: 'cluster', objects: 30 },
    ]);
    expect(stored.crds[0]!.findings).toContainEqual(expect.objectContaining({ rule: 'fieldDroppedOnRead', count: 30 }));
    // Every live object was listed: they decide the revision's findings; the field every one holds stays an error.
    const [revision] = (
      JSON.parse(run.stdout) as {
        crdRevisions: Array<{ evidence?: unknown; findings: Array<{ rule: string; severity: string }> }>;
      }
    ).crdRevisions;
    expect(revision!.evidence).toEqual({ objects: 30, complete: true, policy: 'objects' });
    expect(revision!.findings).toContainEqual(
      expect.objectContaining({ rule: 'existingFieldRemoval', severity: 'error' }),
    );

    const bounded = await crdgate(
      work,
      'check',
      '-f',
      'dropped.yaml',
      '--from-cluster',
      '--kubeconfig',
      cp.kubeconfigPath,
      '--max-objects',
      '10',
      '-o',
      'json',
    );
    expect(bounded.code).toBe(1);
    expect(bounded.stderr).toContain(
      `warning: ${crdName}: stopped listing at --max-objects 10 after 10 objects: the rest were not judged`,
    );
    const cut = JSON.parse(bounded.stdout) as {
      storedObjects: { crds: Array<{ objects: number }> };
      crdRevisions: Array<{ evidence?: unknown }>;
    };
    expect(cut.storedObjects.crds[0]!.objects).toBe(10);
    // Not all of them: the rules alone decide.
    expect(cut.crdRevisions[0]!.evidence).toEqual({ objects: 10, complete: false, policy: 'objects' });
  });

  it('passes a tree that holds the live revision as it is, and a CRD the cluster lacks has no previous revision', async () => {
    const unknown = {
      ...pipeCrd([['v1', true]]),
      metadata: { name: `valves.${group}` },
      spec: {
        ...pipeCrd([['v1', true]]).spec,
        names: { plural: 'valves', singular: 'valve', kind: 'Valve', listKind: 'ValveList' },
      },
    };
    await writeFile(
      join(work, 'same.yaml'),
      [
        stringify(
          pipeCrd([
            ['v1alpha1', false],
            ['v1', true],
          ]),
        ),
        stringify(unknown),
      ].join('---\n'),
    );
    const run = await crdgate(
      work,
      'check',
      '-f',
      'same.yaml',
      '--from-cluster',
      '--kubeconfig',
      cp.kubeconfigPath,
      '-o',
      'json',
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const revisions = (JSON.parse(run.stdout) as { crdRevisions: Array<{ name: string; findings: unknown[] }> })
      .crdRevisions;
    expect(revisions).toEqual([expect.objectContaining({ name: crdName, findings: [] })]);
  });

  it('names the resource when RBAC refuses, and reads with the ClusterRole that manifests --crd-reads renders', async () => {
    const ciKubeconfig = join(work, 'ci.kubeconfig');
    await writeFile(join(work, 'new.yaml'), stringify(pipeCrd([['v1', true]])));
    const refusedCheck = await crdgate(work, 'check', '-f', 'new.yaml', '--from-cluster', '--kubeconfig', ciKubeconfig);
    expect(refusedCheck.code).toBe(2);
    expect(refusedCheck.stderr).toContain(`customresourcedefinition ${crdName}`);
    expect(refusedCheck.stderr).toContain(`--crd-reads ${crdName}`);
    const ciConfig = new KubeConfig();
    ciConfig.loadFromFile(ciKubeconfig);
    const ci = createKubeApi(ciConfig, { timeoutMs: 30_000 });
    const refusedList = await forEachLiveObject(ci, pipes, () => {}, {
      pageSize: 10,
      maxObjects: 100,
      timeoutMs: 30_000,
    }).catch((error: unknown) => error);
    expect(refusedList).toBeInstanceOf(LiveReadError);
    expect((refusedList as LiveReadError).problem).toBe('forbidden');
    expect((refusedList as LiveReadError).message).toContain(`list ${crdName}`);

    const rendered = await crdgate(
      work,
      'manifests',
      '--name',
      installName,
      '--crd-reads',
      crdName,
      '--out',
      'rendered',
    );
    expect(rendered.code, rendered.stderr).toBe(0);
    const role = await kubectl(cp, [
      'apply',
      '--server-side',
      '-f',
      join(work, 'rendered', 'base', '14-crd-reads.yaml'),
    ]);
    expect(role.exitCode, role.stderr).toBe(0);
    const bound = await kubectl(cp, [
      'create',
      'clusterrolebinding',
      binding,
      `--clusterrole=${installName}-crd-reads`,
      `--serviceaccount=${namespaces[0]}:${serviceAccount}`,
    ]);
    expect(bound.exitCode, bound.stderr).toBe(0);
    // RBAC takes effect as soon as the binding is stored; the check then reads the CRD as the ServiceAccount.
    const checked = await crdgate(
      work,
      'check',
      '-f',
      'new.yaml',
      '--from-cluster',
      '--kubeconfig',
      ciKubeconfig,
      '-o',
      'json',
    );
    expect(checked.code, checked.stderr).toBe(1);
    expect(JSON.stringify(JSON.parse(checked.stdout).crdRevisions)).toContain('storedVersionRemoval');
    expect(await forEachLiveObject(ci, pipes, () => {}, { pageSize: 10, maxObjects: 100, timeoutMs: 30_000 })).toEqual({
      complete: true,
      listed: 30,
    });
    // Read-only: the role lets the ServiceAccount write nothing.
    const write = await kubectl(cp, [
      'auth',
      'can-i',
      'update',
      `pipes.${group}`,
      `--as=system:serviceaccount:${namespaces[0]}:${serviceAccount}`,
      '-A',
    ]);
    expect(write.stdout.trim()).toBe('no');
  });
});
