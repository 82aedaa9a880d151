import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionCallsFromMetrics } from '../../src/local-loop/put-in-front.ts';
import { mutatingWebhookName, statusWebhookName, validatingWebhookName } from '../../src/render/webhook-names.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { metricSum, scrapeApiServer } from './support/api-server-metrics.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  removeCrdgate,
  startCrdgateForApiServer,
  type CrdgateInFront,
} from './support/crdgate-webhooks.ts';
import { geoDatabases, validGeoDatabase } from './support/geodatabases.ts';
import { kubectl as runKubectl, type KubectlResult } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

interface Reviews {
  validate: number;
  mutate: number;
}

/**
 * What the webhook configurations `crdgate manifests` renders send crdgate, through the real API server: writes its
 * rules judge reach it (crdgate's own count of reviews goes up), writes they cannot tell from no write at all never
 * do (the count stays, and kube-apiserver counts them excluded by the webhooks' matchConditions), and so those go
 * on while crdgate is down.
 */
describe.skipIf(!controlPlane)('what reaches crdgate through the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const namespace = `crdgate-e2e-reach-${randomUUID().slice(0, 8)}`;
  const contract = geoDatabaseContract();
  let kubeConfig: KubeConfig;
  let gate: CrdgateInFront;
  let stopped = false;
  let reviewsOf: (webhook: 'validate' | 'mutate') => Promise<number>;

  const kubectl = (...args: string[]): Promise<KubectlResult> => runKubectl(cp, [...args, '-n', namespace]);
  const reviews = async (): Promise<Reviews> => ({
    validate: await reviewsOf('validate'),
    mutate: await reviewsOf('mutate'),
  });
  /** The reviews crdgate answered while `write` ran, and how the write ended. */
  const counted = async (write: () => Promise<KubectlResult>): Promise<{ result: KubectlResult; reviews: Reviews }> => {
    const before = await reviews();
    const result = await write();
    const after = await reviews();
    return { result, reviews: { validate: after.validate - before.validate, mutate: after.mutate - before.mutate } };
  };
  const excluded = async (webhook: string): Promise<number> =>
    metricSum(await scrapeApiServer(cp), 'apiserver_admission_match_condition_exclusions_total', { name: webhook });
  const stored = async (name: string) =>
    (await kubeConfig
      .makeApiClient(CustomObjectsApi)
      .getNamespacedCustomObject({ ...geoDatabases, namespace, name })) as any;

  beforeAll(async () => {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    gate = await startCrdgateForApiServer();
    reviewsOf = admissionCallsFromMetrics(`https://127.0.0.1:${gate.server.port}`, gate.server.ca.toString('utf8'));
    await applyCrd(kubeConfig, gate.crd);
    await applyWebhookConfigurations(kubeConfig, gate, namespace);
  });

  afterAll(async () => {
    if (gate)
      await removeCrdgate(kubeConfig, {
        ...gate,
        server: { stop: () => (stopped ? Promise.resolve() : gate.server.stop()) },
      });
    await kubeConfig
      ?.makeApiClient(CoreV1Api)
      .deleteNamespace({ name: namespace })
      .catch(() => undefined);
  });

  /** A create through the API, answered as kubectl's would be. */
  const apply = (body: object): Promise<KubectlResult> =>
    kubeConfig
      .makeApiClient(CustomObjectsApi)
      .createNamespacedCustomObject({ ...geoDatabases, namespace, body })
      .then(
        () => ({ exitCode: 0, stdout: '', stderr: '' }),
        (error: unknown) => ({ exitCode: 1, stdout: '', stderr: String((error as Error).message) }),
      );

  it('sends crdgate every create, and the writes its rules judge: the spec, the label its defaults keep, a phase move, a protected delete', async () => {
    const created = await counted(() => apply(validGeoDatabase(namespace, 'judged')));
    expect(created.result.exitCode, created.result.stderr).toBe(0);
    expect(created.reviews).toEqual({ validate: 1, mutate: 1 });

    const spec = await counted(() =>
      kubectl('patch', 'geodatabase', 'judged', '--type=merge', '-p', '{"spec":{"readReplicas":2}}'),
    );
    expect(spec.result.exitCode, spec.result.stderr).toBe(0);
    expect(spec.reviews).toEqual({ validate: 1, mutate: 1 });

    // The defaults keep the postgres-major label in step with the spec: removing it reaches the mutating webhook, which
    // puts it back, and what is then validated changes nothing judged: the validating webhook is not called.
    const label = await counted(() => kubectl('label', 'geodatabase', 'judged', 'geo.example.com/postgres-major-'));
    expect(label.result.exitCode, label.result.stderr).toBe(0);
    expect(label.reviews).toEqual({ validate: 0, mutate: 1 });
    expect((await stored('judged')).metadata.labels['geo.example.com/postgres-major']).toBe('16');

    const moved = await counted(() =>
      kubectl(
        'patch',
        'geodatabase',
        'judged',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"phase":"Ready"}}',
      ),
    );
    expect(moved.result.exitCode, moved.result.stderr).toBe(0);
    // Pending to Ready skips Provisioning: the operator may know better, and crdgate says so.
    expect(moved.result.stderr).toContain('Warning:');
    expect(moved.reviews).toEqual({ validate: 1, mutate: 0 });

    await kubectl('annotate', 'geodatabase', 'judged', 'geo.example.com/deletion-protection=true');
    const protectedDelete = await counted(() => kubectl('delete', 'geodatabase', 'judged', '--wait=false'));
    expect(protectedDelete.result.exitCode).not.toBe(0);
    expect(protectedDelete.result.stderr).toContain(
      `admission webhook "${validatingWebhookName(contract)}" denied the request`,
    );
    expect(protectedDelete.reviews).toEqual({ validate: 1, mutate: 0 });
    // Lifting the protection is an annotation edit like any other, and then nothing protects the delete.
    const lifted = await counted(() =>
      kubectl('annotate', 'geodatabase', 'judged', 'geo.example.com/deletion-protection-'),
    );
    expect(lifted.reviews).toEqual({ validate: 0, mutate: 0 });
    const deleted = await counted(() => kubectl('delete', 'geodatabase', 'judged'));
    expect(deleted.result.exitCode, deleted.result.stderr).toBe(0);
    expect(deleted.reviews).toEqual({ validate: 0, mutate: 0 });
  });

  it('never sends crdgate a write it has nothing to say about: other labels and annotations, finalizers, status beside the phase, an unprotected delete', async () => {
    expect(
      (
        await apply({
          ...validGeoDatabase(namespace, 'quiet'),
          metadata: { name: 'quiet', namespace, finalizers: ['example.com/hold'] },
        })
      ).exitCode,
    ).toBe(0);
    const before = {
      validate: await excluded(validatingWebhookName(contract)),
      status: await excluded(statusWebhookName(contract)),
      mutate: await excluded(mutatingWebhookName(contract)),
    };
    const writes: Array<[string, () => Promise<KubectlResult>]> = [
      ['a label', () => kubectl('label', 'geodatabase', 'quiet', 'team=maps')],
      ['an annotation', () => kubectl('annotate', 'geodatabase', 'quiet', 'example.com/owner=maps-team')],
      [
        'a finalizer',
        () =>
          kubectl(
            'patch',
            'geodatabase',
            'quiet',
            '--type=json',
            '-p',
            '[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/backup"}]',
          ),
      ],
      [
        'the status beside the phase',
        () =>
          kubectl(
            'patch',
            'geodatabase',
            'quiet',
            '--subresource=status',
            '--type=merge',
            '-p',
            '{"status":{"readyReplicas":1}}',
          ),
      ],
      ['an unprotected delete', () => kubectl('delete', 'geodatabase', 'quiet', '--wait=false')],
      [
        'a finalizer removed from an object being deleted',
        () =>
          kubectl(
            'patch',
            'geodatabase',
            'quiet',
            '--type=json',
            '-p',
            '[{"op":"remove","path":"/metadata/finalizers/0"}]',
          ),
      ],
    ];
    for (const [what, write] of writes) {
      const { result, reviews: sent } = await counted(write);
      expect(result.exitCode, `${what}: ${result.stderr}`).toBe(0);
      expect(sent, what).toEqual({ validate: 0, mutate: 0 });
    }
    expect((await stored('quiet')).metadata.finalizers).toEqual(['example.com/backup']);
    // The last finalizer goes too, and the deletion completes, still without crdgate.
    const released = await counted(() =>
      kubectl('patch', 'geodatabase', 'quiet', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]'),
    );
    expect(released.result.exitCode, released.result.stderr).toBe(0);
    expect(released.reviews).toEqual({ validate: 0, mutate: 0 });
    expect((await kubectl('get', 'geodatabase', 'quiet')).stderr).toContain('NotFound');
    // kube-apiserver's own count: the label, annotation and three finalizer updates by both webhooks' conditions,
    // the status write by the status webhook's, the delete by the main webhook's.
    expect((await excluded(validatingWebhookName(contract))) - before.validate).toBe(6);
    expect((await excluded(mutatingWebhookName(contract))) - before.mutate).toBe(5);
    expect((await excluded(statusWebhookName(contract))) - before.status).toBe(1);
  });

  it('lets those writes through while crdgate is down, where a spec change is refused', async () => {
    expect(
      (
        await apply({
          ...validGeoDatabase(namespace, 'outage'),
          metadata: { name: 'outage', namespace, finalizers: ['example.com/hold'] },
        })
      ).exitCode,
    ).toBe(0);
    await gate.server.stop();
    stopped = true;
    const refused = await kubectl(
      'patch',
      'geodatabase',
      'outage',
      '--type=merge',
      '-p',
      '{"spec":{"readReplicas":3}}',
    );
    expect(refused.exitCode).not.toBe(0);
    // The mutating webhook is called first, and fails first.
    expect(refused.stderr).toContain(`failed calling webhook "${mutatingWebhookName(contract)}"`);
    for (const write of [
      () => kubectl('label', 'geodatabase', 'outage', 'team=maps'),
      () =>
        kubectl(
          'patch',
          'geodatabase',
          'outage',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"readyReplicas":2}}',
        ),
      // A phase move only ever draws a warning: its webhook is Ignore.
      () =>
        kubectl(
          'patch',
          'geodatabase',
          'outage',
          '--subresource=status',
          '--type=merge',
          '-p',
          '{"status":{"phase":"Provisioning"}}',
        ),
      () => kubectl('delete', 'geodatabase', 'outage', '--wait=false'),
      () =>
        kubectl(
          'patch',
          'geodatabase',
          'outage',
          '--type=json',
          '-p',
          '[{"op":"remove","path":"/metadata/finalizers/0"}]',
        ),
    ]) {
      const result = await write();
      expect(result.exitCode, result.stderr).toBe(0);
    }
    const gone = await kubectl('get', 'geodatabase', 'outage');
    expect(gone.stderr).toContain('NotFound');
  });
});
