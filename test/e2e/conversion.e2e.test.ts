import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEtcdRaw } from './support/etcd-raw.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { useCrdgateInFront } from './support/crdgate-in-front.ts';
import { kubectl, warningLines } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const stash = 'geo.example.com/conversion-data';

describe.skipIf(!controlPlane)('conversion behind the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const scene = useCrdgateInFront(cp, 'crdgate-e2e-conversion');
  let workDir: string;

  const resource = (version: string) => ({
    group: 'geo.example.com',
    version,
    plural: 'geodatabases',
    namespace: scene().namespace,
  });
  const read = (version: string, name: string): Promise<any> =>
    scene().customObjects.getNamespacedCustomObject({ ...resource(version), name });
  const stored = async (name: string): Promise<any> =>
    readEtcdRaw(cp.etcdUrl, `/registry/geo.example.com/geodatabases/${scene().namespace}/${name}`);
  const conversionCalls = () =>
    scene()
      .gate.server.logLines()
      .filter((line) => line.path === '/convert' && line.result === 'Success').length;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-conversion-'));
  });
  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('creates in v1alpha1 (deprecated, with a warning), stores v1, and serves it in v1 and v1beta1', async () => {
    const file = join(workDir, 'alpha.yaml');
    await writeFile(
      file,
      stringify({
        apiVersion: 'geo.example.com/v1alpha1',
        kind: 'GeoDatabase',
        metadata: { name: 'from-alpha', namespace: scene().namespace },
        spec: { postgresVersion: '15.7', postgisVersion: '3.4.2', replicas: 1, storageGB: 20, cacheMB: 512 },
      }),
    );
    const created = await kubectl(cp, ['create', '-f', file]);
    expect(created.exitCode).toBe(0);
    expect(warningLines(created).join('\n')).toContain('geo.example.com/v1alpha1 GeoDatabase is deprecated');

    const v1 = await read('v1', 'from-alpha');
    expect(v1.apiVersion).toBe('geo.example.com/v1');
    // The mutating webhook saw the hub version (matchPolicy Equivalent), so every default is there.
    expect(v1.spec).toEqual({
      postgres: { version: '15.7', postgis: '3.4.2' },
      readReplicas: 1,
      storage: { size: '20Gi' },
      caches: [{ name: 'default', memory: '512Mi', version: '7.2', replicas: 1 }],
    });
    expect(v1.metadata.annotations?.[stash]).toBeUndefined();

    const v1beta1 = await read('v1beta1', 'from-alpha');
    expect(v1beta1.apiVersion).toBe('geo.example.com/v1beta1');
    expect(v1beta1.spec).toMatchObject({
      postgres: { version: '15.7' },
      replicas: 1,
      caches: [{ name: 'default', memory: '512Mi' }],
    });

    expect(await stored('from-alpha')).toMatchObject({ apiVersion: 'geo.example.com/v1', spec: { readReplicas: 1 } });
    expect(conversionCalls()).toBeGreaterThan(0);
  });

  it('loses nothing when a v1 object with two caches and a storage class is written back through v1alpha1', async () => {
    const original = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'rich', namespace: scene().namespace },
      spec: {
        postgres: { version: '16.4', postgis: '3.4.2' },
        readReplicas: 2,
        storage: { size: '51200Mi', storageClassName: 'ssd' },
        caches: [
          { name: 'tiles', memory: '2Gi', version: '7.4', replicas: 2 },
          { name: 'geo', memory: '1536Mi', version: '7.2', replicas: 1 },
        ],
      },
    };
    await scene().customObjects.createNamespacedCustomObject({ ...resource('v1'), body: original });
    const before = await read('v1', 'rich');

    const alpha = await read('v1alpha1', 'rich');
    expect(alpha.spec).toEqual({
      postgresVersion: '16.4',
      postgisVersion: '3.4.2',
      replicas: 2,
      storageGB: 50,
      cacheMB: 0,
    });
    expect(JSON.parse(alpha.metadata.annotations[stash])).toBeTypeOf('object');

    // Written back through v1alpha1 exactly as read: the stash carries what v1alpha1 cannot show.
    await scene().customObjects.replaceNamespacedCustomObject({ ...resource('v1alpha1'), name: 'rich', body: alpha });
    const after = await read('v1', 'rich');
    expect(after.spec).toEqual(before.spec);
    expect(after.spec.storage).toEqual({ size: '51200Mi', storageClassName: 'ssd' });
    expect(after.metadata.annotations?.[stash]).toBeUndefined();
    expect(after.metadata.labels).toEqual(before.metadata.labels);

    const inEtcd = await stored('rich');
    expect(inEtcd.apiVersion).toBe('geo.example.com/v1');
    expect(inEtcd.metadata.annotations?.[stash]).toBeUndefined();
  });

  it('keeps every object in etcd in the storage version, whatever version wrote it', async () => {
    await scene().customObjects.createNamespacedCustomObject({
      ...resource('v1beta1'),
      body: {
        apiVersion: 'geo.example.com/v1beta1',
        kind: 'GeoDatabase',
        metadata: { name: 'from-beta', namespace: scene().namespace },
        spec: {
          postgres: { version: '17.2', postgis: '3.5.1' },
          replicas: 3,
          storage: { size: '100Gi' },
          caches: [{ name: 'x', memory: '256Mi' }],
        },
      },
    });
    for (const name of ['from-alpha', 'rich', 'from-beta']) {
      expect((await stored(name)).apiVersion, name).toBe('geo.example.com/v1');
    }
  });
});
