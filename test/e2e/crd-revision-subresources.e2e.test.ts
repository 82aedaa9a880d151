import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { compareCrdRevisions } from '../../src/crd-revision/compare/compare-crd-revisions.ts';
import { widgetCrd } from '../../src/crd-revision/crd-revision.fixture.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { applyStrict, expectStatus, installCrd, removeCrd, restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// What the revision rules say a subresource change and a difference between served versions do to stored objects
// and clients, put to a real kube-apiserver: each finding's severity rests on it.

const group = `rev-${randomUUID().slice(0, 8)}.toys.example.com`;
const namespace = 'default';

/** The widget CRD in a group of this run's own, v1 alone or with v1beta1, conversion None, a status in the schema. */
function crd({
  versions = ['v1'],
  subresources,
}: { versions?: string[]; subresources?: Record<string, unknown> } = {}): any {
  const widget: any = widgetCrd();
  widget.metadata.name = `widgets.${group}`;
  widget.spec.group = group;
  widget.spec.conversion = { strategy: 'None' };
  widget.spec.versions = widget.spec.versions.filter((version: any) => versions.includes(version.name));
  for (const version of widget.spec.versions) {
    version.schema.openAPIV3Schema.properties.status = {
      type: 'object',
      properties: { replicas: { type: 'integer' } },
    };
    if (subresources) version.subresources = subresources;
  }
  return widget;
}

const scale = { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' };

describe.skipIf(!controlPlane)('CRD revision findings against kube-apiserver: subresources and served versions', () => {
  const cp = controlPlane as ProvidedControlPlane;
  let api: Rest;
  const collection = (version: string) => `/apis/${group}/${version}/namespaces/${namespace}/widgets`;
  const widget = (
    name: string,
    version = 'v1',
    spec: Record<string, unknown> = {},
    status?: Record<string, unknown>,
  ) => ({
    apiVersion: `${group}/${version}`,
    kind: 'Widget',
    metadata: { name },
    spec: { size: 2, mode: 'safe', ...spec },
    ...(status ? { status } : {}),
  });
  const get = async (name: string, version = 'v1') =>
    (await api.send('GET', `${collection(version)}/${name}`).then(expectStatus(200))).body as KubeObject;

  /** Applies a revision of the CRD and waits until discovery lists the subresources it has, and no other. */
  async function revise(revision: any): Promise<void> {
    await applyStrict(api, [revision as Manifest], 'crdgate-e2e-revision');
    const wanted = [
      'widgets',
      ...Object.keys(revision.spec.versions[0].subresources ?? {}).map((name) => `widgets/${name}`),
    ].sort();
    await eventually('the revision to be served', async () => {
      const discovery = (await api.send('GET', `/apis/${group}/v1`)).body as
        { resources?: { name: string }[] } | undefined;
      const served = (discovery?.resources ?? []).map((resource) => resource.name).sort();
      return JSON.stringify(served) === JSON.stringify(wanted) ? true : undefined;
    });
  }

  beforeAll(() => {
    api = restClient(cp.kubeconfigPath);
  });
  afterAll(async () => {
    await removeCrd(api, crd());
    api?.close();
  });

  it('status subresource enabled: a write no longer changes the status, a create drops it; removed: /status is 404', async () => {
    await installCrd(api, crd(), 'crdgate-e2e-revision');
    await api.send('POST', collection('v1'), widget('before', 'v1', {}, { replicas: 3 })).then(expectStatus(201));
    expect((await get('before')).status).toEqual({ replicas: 3 });

    const withStatus = crd({ subresources: { status: {}, scale } });
    expect(compareCrdRevisions(crd(), withStatus).map(({ rule, severity }) => [rule, severity])).toEqual([
      ['statusSubresourceAdded', 'error'],
      ['scaleSubresourceAdded', 'warning'],
    ]);
    await revise(withStatus);
    const stored = await get('before');
    const written = (
      await api
        .send('PUT', `${collection('v1')}/before`, {
          ...stored,
          spec: { ...(stored.spec as Record<string, unknown>), size: 3 },
          status: { replicas: 5 },
        })
        .then(expectStatus(200))
    ).body as KubeObject;
    expect(written.spec).toMatchObject({ size: 3 });
    expect(written.status).toEqual({ replicas: 3 });
    const created = (
      await api.send('POST', collection('v1'), widget('after', 'v1', {}, { replicas: 4 })).then(expectStatus(201))
    ).body as KubeObject;
    expect(created.status).toBeUndefined();
    // The scale subresource added reads the replicas from the paths it names.
    const scaleRead = (await api.send('GET', `${collection('v1')}/before/scale`).then(expectStatus(200))).body as {
      spec: { replicas: number };
      status: { replicas: number };
    };
    expect([scaleRead.spec.replicas, scaleRead.status.replicas]).toEqual([3, 3]);

    const withoutStatus = crd();
    expect(compareCrdRevisions(withStatus, withoutStatus).map(({ rule, severity }) => [rule, severity])).toEqual([
      ['statusSubresourceRemoved', 'error'],
      ['scaleSubresourceRemoved', 'error'],
    ]);
    await revise(withoutStatus);
    expect((await api.send('GET', `${collection('v1')}/before/status`)).status).toBe(404);
    expect((await api.send('GET', `${collection('v1')}/before/scale`)).status).toBe(404);
    const again = await get('before');
    const rewritten = (
      await api.send('PUT', `${collection('v1')}/before`, { ...again, status: { replicas: 7 } }).then(expectStatus(200))
    ).body as KubeObject;
    expect(rewritten.status).toEqual({ replicas: 7 });
  });

  it('served versions that differ, conversion None: an object written back through the older one loses what it lacks', async () => {
    const old = crd({ versions: ['v1beta1', 'v1'] });
    const revised = crd({ versions: ['v1beta1', 'v1'] });
    revised.spec.versions.find((v: any) => v.name === 'v1').schema.openAPIV3Schema.properties.spec.properties.color = {
      type: 'string',
    };
    const [difference] = compareCrdRevisions(old, revised);
    expect(difference).toMatchObject({
      rule: 'servedVersionDifference',
      severity: 'error',
      version: 'v1',
      comparedWith: 'v1beta1',
      path: 'spec.color',
    });
    await applyStrict(api, [revised as Manifest], 'crdgate-e2e-revision');
    await eventually('v1beta1 to be served', async () =>
      (await api.send('GET', `/apis/${group}/v1beta1`)).status === 200 ? true : undefined,
    );
    await eventually('v1 to take spec.color', async () => {
      const response = await api.send(
        'POST',
        `${collection('v1')}?dryRun=All&fieldValidation=Strict`,
        widget('probe', 'v1', { color: 'red' }),
      );
      return response.status === 201 ? true : undefined;
    });

    await api.send('POST', collection('v1'), widget('painted', 'v1', { color: 'red' })).then(expectStatus(201));
    expect((await get('painted', 'v1')).spec).toMatchObject({ color: 'red' });
    const throughOlder = await get('painted', 'v1beta1');
    expect(throughOlder.spec).not.toHaveProperty('color');
    await api
      .send('PUT', `${collection('v1beta1')}/painted`, {
        ...throughOlder,
        metadata: { ...throughOlder.metadata, labels: { touched: 'yes' } },
      })
      .then(expectStatus(200));
    expect((await get('painted', 'v1')).spec).not.toHaveProperty('color');
  });
});
