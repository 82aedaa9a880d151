import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEtcdRaw } from './support/etcd-raw.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { isNotFound, refusal } from './support/api-error.ts';
import { webhookCallsAbout } from './support/crdgate-log.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  removeCrdgate,
  startCrdgateForApiServer,
  type CrdgateInFront,
} from './support/crdgate-webhooks.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import {
  geoDatabases,
  invalidGeoDatabase,
  invalidGeoDatabaseFields,
  validGeoDatabase,
} from './support/geodatabases.ts';
import { kubectl } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const deniedByValidation = 'admission webhook "validate.geodatabases.geo.example.com" denied the request';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.skipIf(!controlPlane)('admission webhooks behind the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const namespace = `crdgate-e2e-admission-${randomUUID().slice(0, 8)}`;
  let kubeConfig: KubeConfig;
  let core: CoreV1Api;
  let customObjects: CustomObjectsApi;
  let gate: CrdgateInFront | undefined;
  let workDir: string;
  /** What the API server made of the invalid object before crdgate was in place: its own schema's verdict. */
  let withoutCrdgate: string;

  const getGeoDatabase = (name: string): Promise<any> =>
    customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name });
  const createGeoDatabase = (body: object, dryRun?: 'All'): Promise<any> =>
    customObjects.createNamespacedCustomObject({ ...geoDatabases, namespace, body, ...(dryRun ? { dryRun } : {}) });
  const expectAbsent = async (name: string): Promise<void> => {
    expect(await refusal(getGeoDatabase(name))).toMatchObject({ code: 404 });
  };
  const callsAbout = (name: string): string[] =>
    webhookCallsAbout(gate!.server, namespace, name).map(
      (call) => `${call.path} ${call.operation} ${call.decision} ${call.code}${call.dryRun ? ' dryRun' : ''}`,
    );

  beforeAll(async () => {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    core = kubeConfig.makeApiClient(CoreV1Api);
    customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-admission-'));
    await core.createNamespace({ body: { metadata: { name: namespace } } });

    gate = await startCrdgateForApiServer();
    await applyCrd(kubeConfig, gate.crd);
    withoutCrdgate = await eventually('the new CRD to serve GeoDatabases', () =>
      createGeoDatabase(invalidGeoDatabase(namespace, 'schema-only'), 'All').then(
        () => 'accepted',
        (error: unknown) => (isNotFound(error) ? undefined : `refused: ${String(error)}`),
      ),
    );
    await applyWebhookConfigurations(kubeConfig, gate, namespace);
  });

  afterAll(async () => {
    if (gate) await removeCrdgate(kubeConfig, gate);
    // No controller-manager runs, so the namespace stays Terminating; its name is unique to this run.
    await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("lets the invalid object through on the CRD's own schema alone, so every refusal below is crdgate's", () => {
    expect(withoutCrdgate).toBe('accepted');
  });

  it("creates a valid GeoDatabase with the mutating webhook's defaults and computed label", async () => {
    const created = await createGeoDatabase(validGeoDatabase(namespace, 'valid'));
    expect(created.metadata.labels).toEqual({ 'geo.example.com/postgres-major': '16' });
    expect(created.spec).toEqual({
      postgres: { version: '16.4', postgis: '3.4.2' },
      readReplicas: 0,
      storage: { size: '20Gi' },
      caches: [{ name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 }],
    });
    expect((await getGeoDatabase('valid')).spec).toEqual(created.spec);

    // crdgate's log shows the API server's calls: defaults first, then the decision on the defaulted object.
    const calls = webhookCallsAbout(gate!.server, namespace, 'valid');
    expect(calls).toEqual([
      {
        path: '/mutate',
        uid: expect.stringMatching(uuid),
        operation: 'CREATE',
        decision: 'allowed',
        code: 'ALLOWED',
        patched: true,
      },
      {
        path: '/validate',
        uid: expect.stringMatching(uuid),
        operation: 'CREATE',
        decision: 'allowed',
        code: 'ALLOWED',
      },
    ]);
  });

  it('stores the defaulted object in etcd as geo.example.com/v1', async () => {
    await createGeoDatabase(validGeoDatabase(namespace, 'stored'));
    const stored = (await readEtcdRaw(cp.etcdUrl, `/registry/geo.example.com/geodatabases/${namespace}/stored`)) as any;
    expect(stored).toMatchObject({
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'stored', namespace, labels: { 'geo.example.com/postgres-major': '16' } },
      spec: { readReplicas: 0, caches: [{ name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 }] },
    });
  });

  it('refuses an invalid GeoDatabase, and kubectl apply prints a message naming every bad field', async () => {
    const file = join(workDir, 'invalid.yaml');
    await writeFile(file, stringify(invalidGeoDatabase(namespace, 'invalid')));
    const applied = await kubectl(cp, ['apply', '-f', file]);

    expect(applied.exitCode).toBe(1);
    // For a 422 with causes, kubectl prints one line per cause instead of the Status message, under a heading
    // made from the denial's details (kind and name).
    expect(applied.stderr).toContain('The GeoDatabase "invalid" is invalid: ');
    for (const field of invalidGeoDatabaseFields) expect(applied.stderr).toContain(`\n* ${field}: `);
    // Words only crdgate says: the API server knows no PostgreSQL release.
    expect(applied.stderr).toContain(
      '* spec.postgres.version: PostgreSQL major 18 is not supported (supported: 13 to 17)',
    );
    await expectAbsent('invalid');
    // The mutating webhook leaves an object its schema rejects alone; the validating webhook refuses it.
    expect(callsAbout('invalid')).toEqual(['/mutate CREATE allowed ALLOWED', '/validate CREATE denied OBJECT_INVALID']);
  });

  it("refuses a size of 50GB and a cache named Tiles_1 in the API server's own validation, in crdgate's words, before its validating webhook", async () => {
    const file = join(workDir, 'schema-invalid.yaml');
    const object = validGeoDatabase(namespace, 'schema-invalid');
    await writeFile(
      file,
      stringify({
        ...object,
        spec: { ...(object.spec as object), storage: { size: '50GB' }, caches: [{ name: 'Tiles_1', memory: '1Gi' }] },
      }),
    );
    const applied = await kubectl(cp, ['apply', '-f', file]);
    expect(applied.exitCode).toBe(1);
    expect(applied.stderr).not.toContain('admission webhook');
    expect(applied.stderr).toContain(
      '* spec.storage.size: Invalid value: "50GB": must be a Kubernetes quantity such as 500m, 64Mi, 2Gi or 1.5e3',
    );
    expect(applied.stderr).toContain('* spec.caches[0].name: Invalid value: "Tiles_1": must be a DNS-1123 label');
    await expectAbsent('schema-invalid');
    // The mutating webhook runs before the API server validates; the validating webhook is never asked.
    expect(callsAbout('schema-invalid')).toEqual(['/mutate CREATE allowed ALLOWED']);
  });

  it('keeps a deletion-protected GeoDatabase until the protection is removed as the message says', async () => {
    await createGeoDatabase(
      validGeoDatabase(namespace, 'protected', { 'geo.example.com/deletion-protection': 'true' }),
    );

    const refused = await kubectl(cp, ['delete', 'geodatabase', 'protected', '-n', namespace]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(deniedByValidation);
    expect(refused.stderr).toContain(`GeoDatabase ${namespace}/protected is deletion-protected`);
    expect(await getGeoDatabase('protected')).toMatchObject({ metadata: { name: 'protected' } });

    // Follow the advice word for word.
    const advice = /kubectl (annotate .*deletion-protection-)/.exec(refused.stderr)?.[1];
    expect(advice).toBe(`annotate geodatabase protected -n ${namespace} geo.example.com/deletion-protection-`);
    expect((await kubectl(cp, advice!.split(' '))).exitCode).toBe(0);
    const deleted = await kubectl(cp, ['delete', 'geodatabase', 'protected', '-n', namespace]);
    expect(deleted).toMatchObject({ exitCode: 0, stderr: '' });
    await expectAbsent('protected');

    // Removing the annotation changes nothing GeoDatabase's rules read, and nothing then protects the delete: neither
    // reaches crdgate (the webhooks' matchConditions skip them).
    expect(callsAbout('protected')).toEqual([
      '/mutate CREATE allowed ALLOWED',
      '/validate CREATE allowed ALLOWED',
      '/validate DELETE denied DELETION_PROTECTED',
    ]);
  });

  it('runs the webhooks on a server-side dry run and persists nothing', async () => {
    const invalid = await refusal(createGeoDatabase(invalidGeoDatabase(namespace, 'dry-invalid'), 'All'));
    expect(invalid.code).toBe(422);
    expect(invalid.message).toContain(`${deniedByValidation}: GeoDatabase.geo.example.com "dry-invalid" is invalid: `);
    for (const field of invalidGeoDatabaseFields) expect(invalid.message).toContain(`${field}: `);

    const valid = await createGeoDatabase(validGeoDatabase(namespace, 'dry-valid'), 'All');
    expect(valid.spec).toMatchObject({ readReplicas: 0, caches: [{ version: '7.2', replicas: 1 }] });
    expect(valid.metadata.labels).toEqual({ 'geo.example.com/postgres-major': '16' });

    await expectAbsent('dry-invalid');
    await expectAbsent('dry-valid');
    expect(
      await readEtcdRaw(cp.etcdUrl, `/registry/geo.example.com/geodatabases/${namespace}/dry-valid`),
    ).toBeUndefined();
    // crdgate was told it was a dry run, and answered as for any other request.
    expect(callsAbout('dry-invalid')).toEqual([
      '/mutate CREATE allowed ALLOWED dryRun',
      '/validate CREATE denied OBJECT_INVALID dryRun',
    ]);
    expect(callsAbout('dry-valid')).toEqual([
      '/mutate CREATE allowed ALLOWED dryRun',
      '/validate CREATE allowed ALLOWED dryRun',
    ]);
  });
});
