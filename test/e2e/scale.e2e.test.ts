import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../../src/admission/scalable-geodatabase.fixture.ts';
import { createKubeApi } from '../../src/kube/kube-api.ts';
import { loadKubeConfig } from '../../src/kube/kube-config.ts';
import { createStoredObjectReader, storedObjectReadTimeoutMs } from '../../src/kube/stored-object-reader.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import { installNames } from '../../src/render/in-cluster-names.ts';
import { renderScaleReadsFile } from '../../src/render/scale-reads.ts';
import { scaleWebhookName, validatingWebhookName } from '../../src/render/webhook-names.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  removeCrdgate,
  startCrdgateForApiServer,
  type CrdgateInFront,
} from './support/crdgate-webhooks.ts';
import { geoDatabases, validGeoDatabase } from './support/geodatabases.ts';
import { kubectl, warningLines, type KubectlResult } from './support/kubectl.ts';
import { writeServiceAccountKubeconfig } from './support/service-account-kubeconfig.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const override = 'geo.example.com/override-transitions';

/** What a client learns from one write: whether it passed, crdgate's words, the warnings, the spec it left stored. */
interface Outcome {
  exitCode: number;
  denial: string | undefined;
  warnings: string[];
  spec: { readReplicas: number } & Record<string, unknown>;
}

/**
 * `kubectl scale` of a GeoDatabase whose v1 and v1beta1 have a scale subresource on their read replicas, against
 * `kubectl patch` of the same field, through the real API server: crdgate in front of it reads the object behind
 * each /scale review as a ServiceAccount with exactly the RBAC that `crdgate manifests` renders for it.
 */
describe.skipIf(!controlPlane)('kubectl scale through the real API server, judged as the same patch', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const id = randomUUID().slice(0, 8);
  const namespace = `crdgate-e2e-scale-${id}`;
  const install = { name: `scale-${id}`, namespace };
  const contract = scalableGeoDatabaseContract();
  const [reads] = renderScaleReadsFile('base/12-scale-reads.yaml', [contract], install);
  let kubeConfig: KubeConfig;
  let gate: CrdgateInFront | undefined;
  let dir: string;

  const customObjects = () => kubeConfig.makeApiClient(CustomObjectsApi);
  const storedSpecOf = async (name: string): Promise<Outcome['spec']> =>
    (
      (await customObjects().getNamespacedCustomObject({ ...geoDatabases, namespace, name })) as {
        spec: Outcome['spec'];
      }
    ).spec;
  const replicasOf = async (name: string): Promise<number> => (await storedSpecOf(name)).readReplicas;
  const setPhase = async (name: string, phase: string) => {
    const moved = await kubectl(cp, [
      'patch',
      'geodatabase',
      name,
      '-n',
      namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { phase } }),
    ]);
    expect(moved.exitCode, moved.stderr).toBe(0);
  };
  /** One object, created in Pending (where anything goes) and then moved to `phase` by the operator's hand. */
  const databaseIn = async (
    name: string,
    phase: string,
    readReplicas: number,
    annotations?: Record<string, string>,
  ) => {
    const object = validGeoDatabase(namespace, name, annotations);
    await customObjects().createNamespacedCustomObject({
      ...geoDatabases,
      namespace,
      body: { ...object, spec: { ...(object.spec as object), readReplicas } },
    });
    if (phase !== 'Pending') await setPhase(name, phase);
  };
  const scale = (name: string, replicas: number, resource = 'geodatabase') =>
    kubectl(cp, ['scale', `${resource}/${name}`, '-n', namespace, `--replicas=${replicas}`]);
  const patch = (name: string, spec: object, resource = 'geodatabase') =>
    kubectl(cp, ['patch', resource, name, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec })]);
  /** crdgate's own words, after the API server's `admission webhook "NAME" denied the request: `, with the object's name made neutral. */
  const denialOf = (result: KubectlResult, name: string): string | undefined =>
    /denied the request: (.*)$/m
      .exec(result.stderr)?.[1]
      ?.replaceAll(`"${name}"`, '"NAME"')
      .replaceAll(`/${name}`, '/NAME');
  const outcome = async (result: KubectlResult, name: string): Promise<Outcome> => ({
    exitCode: result.exitCode,
    denial: denialOf(result, name),
    warnings: warningLines(result),
    spec: await storedSpecOf(name),
  });

  beforeAll(async () => {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    // The server's ServiceAccount and what the manifests grant it, nothing more: crdgate reads with its token.
    const serviceAccount = installNames(install.name).server;
    const created = await kubectl(cp, ['create', 'serviceaccount', serviceAccount, '-n', namespace]);
    expect(created.exitCode, created.stderr).toBe(0);
    await serverSideApply(kubeConfig, reads!.manifests);
    dir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-scale-'));
    const kubeconfigFile = join(dir, 'kubeconfig');
    await writeServiceAccountKubeconfig(cp, namespace, serviceAccount, kubeconfigFile);
    const api = createKubeApi(await loadKubeConfig(kubeconfigFile, undefined, dir), {
      timeoutMs: storedObjectReadTimeoutMs,
    });
    gate = await startCrdgateForApiServer({ readStoredObject: createStoredObjectReader(api) }, contract);
    await applyCrd(kubeConfig, gate.crd);
    await applyWebhookConfigurations(kubeConfig, gate, namespace);
  });

  afterAll(async () => {
    if (gate) await removeCrdgate(kubeConfig, gate);
    // Cluster-scoped, so they would outlive the namespace (which stays Terminating: no controller-manager runs).
    for (const manifest of reads?.manifests ?? [])
      await kubectl(cp, ['delete', manifest.kind.toLowerCase(), manifest.metadata.name, '--ignore-not-found']);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cases: Array<{
    label: string;
    phase: string;
    from: number;
    to: number;
    annotations?: Record<string, string>;
    allowed: boolean;
  }> = [
    { label: 'pending', phase: 'Pending', from: 1, to: 3, allowed: true },
    { label: 'ready-up', phase: 'Ready', from: 1, to: 3, allowed: true },
    { label: 'ready-down', phase: 'Ready', from: 3, to: 1, allowed: true },
    { label: 'upgrading', phase: 'Upgrading', from: 1, to: 3, allowed: false },
    { label: 'failed', phase: 'Failed', from: 2, to: 1, allowed: false },
    // An override the object carries already authorised the write that set it; a Scale cannot give a new one.
    {
      label: 'stale-override',
      phase: 'Upgrading',
      from: 1,
      to: 3,
      annotations: { [override]: 'INC-42: read load needs it now' },
      allowed: false,
    },
    { label: 'blank-override', phase: 'Upgrading', from: 1, to: 3, annotations: { [override]: ' ' }, allowed: false },
  ];

  it.each(cases)(
    '$label: kubectl scale $from -> $to in $phase gets what kubectl patch of spec.readReplicas gets',
    async ({ label, phase, from, to, annotations, allowed }) => {
      const [scaled, patched] = [`${label}-scale`, `${label}-patch`];
      await databaseIn(scaled, phase, from, annotations);
      await databaseIn(patched, phase, from, annotations);
      const byScale = await outcome(await scale(scaled, to), scaled);
      const byPatch = await outcome(await patch(patched, { readReplicas: to }), patched);
      // The same answer, and the same spec stored afterwards, whole (defaults included), not only its replicas.
      expect(byScale).toEqual(byPatch);
      expect(byScale).toMatchObject({ exitCode: allowed ? 0 : 1, spec: { readReplicas: allowed ? to : from } });
      if (!allowed)
        expect(byScale.denial).toMatch(
          /^GeoDatabase\.geo\.example\.com "NAME" cannot be changed: spec\.readReplicas: /,
        );
    },
  );

  it("refuses with the machine's message, from the /scale webhook, and shows the warnings of an allowed scale", async () => {
    await databaseIn('words', 'Upgrading', 1);
    const refused = await scale('words', 3);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`admission webhook "${scaleWebhookName(contract)}" denied the request: `);
    expect(refused.stderr).toContain(
      'GeoDatabase.geo.example.com "words" cannot be changed: spec.readReplicas: changing read replicas from 1 to 3 is not allowed while the database is Upgrading (allowed in: Provisioning, Ready, Scaling, Resizing, Degraded)',
    );
    expect((await patch('words', { readReplicas: 3 })).stderr).toContain(
      `admission webhook "${validatingWebhookName(contract)}" denied the request: `,
    );

    await databaseIn('down', 'Ready', 3);
    const down = await scale('down', 1);
    expect(down.stdout).toContain('geodatabase.geo.example.com/down scaled');
    expect(warningLines(down)).toEqual(['Warning: spec.readReplicas: reducing read replicas from 3 to 1']);

    await databaseIn('vouched', 'Upgrading', 1, { [override]: 'INC-42: read load needs it now' });
    const stale = await scale('vouched', 2);
    expect(stale.exitCode).toBe(1);
    expect(stale.stderr).toContain(`the ${override} annotation on the object authorised only the write that set it`);
    // The override is given with the change, in one write: a patch of the replicas field and the annotation.
    const vouched = await kubectl(cp, [
      'patch',
      'geodatabase',
      'vouched',
      '-n',
      namespace,
      '--type',
      'merge',
      '-p',
      JSON.stringify({
        metadata: { annotations: { [override]: 'INC-43: read load needs it now' } },
        spec: { readReplicas: 2 },
      }),
    ]);
    expect(vouched.exitCode, vouched.stderr).toBe(0);
    expect(warningLines(vouched).join('\n')).toContain('INC-43');
  });

  it("words a scale through v1beta1 in v1beta1's fields, as a v1beta1 patch is worded", async () => {
    const v1beta1 = 'geodatabases.v1beta1.geo.example.com';
    await databaseIn('old-client-scale', 'Upgrading', 1);
    await databaseIn('old-client-patch', 'Upgrading', 1);
    const byScale = await outcome(await scale('old-client-scale', 4, v1beta1), 'old-client-scale');
    const byPatch = await outcome(await patch('old-client-patch', { replicas: 4 }, v1beta1), 'old-client-patch');
    expect(byScale).toEqual(byPatch);
    expect(byScale.denial).toContain(
      'spec.replicas: changing read replicas from 1 to 4 is not allowed while the database is Upgrading',
    );
  });

  it('fails closed when it cannot read the object: without its RBAC, kubectl scale is refused and says why; with it back, it passes', async () => {
    await databaseIn('unread', 'Ready', 1);
    const binding = reads!.manifests.find((manifest) => manifest.kind === 'ClusterRoleBinding')!;
    expect((await kubectl(cp, ['delete', 'clusterrolebinding', binding.metadata.name])).exitCode).toBe(0);
    try {
      const refused = await eventually("the API server to stop authorizing crdgate's reads", async () => {
        const result = await scale('unread', 2);
        return result.exitCode === 0 ? undefined : result;
      });
      expect(refused.stderr).toContain(
        `the state of GeoDatabase.geo.example.com "${namespace}/unread" could not be read for a scale request: GET `,
      );
      expect(refused.stderr).toContain('answered 403 Forbidden');
      expect(refused.stderr).toContain('ServiceUnavailable');
      expect(await replicasOf('unread')).toBe(1);
      // A patch needs no read: the same change passes.
      expect((await patch('unread', { readReplicas: 2 })).exitCode).toBe(0);
    } finally {
      await serverSideApply(kubeConfig, [binding]);
    }
    const scaled = await eventually("the API server to authorize crdgate's reads again", async () => {
      const result = await scale('unread', 3);
      return result.exitCode === 0 ? result : undefined;
    });
    expect(scaled.stdout).toContain('scaled');
    expect(await replicasOf('unread')).toBe(3);
  });
});
