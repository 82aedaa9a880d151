import { randomUUID } from 'node:crypto';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { main } from '../../../src/cli.ts';
import type { KubeObject } from '../../../src/contract/values/kube-object.ts';
import type { MigrationReport } from '../../../src/migrate/migration-report.ts';
import type { Manifest } from '../../../src/render/manifest.ts';
import { readEtcdPrefix, type EtcdEntry } from './etcd-raw.ts';
import { eventually } from '../../../src/local-loop/eventually.ts';
import { geoDatabases } from './geodatabases.ts';
import { serverSideApply } from '../../../src/local-loop/server-side-apply.ts';

export const resource = 'geodatabases.geo.example.com';
export const stashAnnotation = 'geo.example.com/conversion-data';
const prefix = '/registry/geo.example.com/geodatabases/';

export interface VersionFlags {
  storage: string;
  /** Versions that are not served; every other version is. */
  unserved?: string[];
  /** Versions taken out of the CRD altogether (possible once storedVersions no longer names them). */
  removed?: string[];
}

/**
 * Applies crdgate's rendered CRD with another storage version (or some versions no longer served), and waits until
 * the API server acts on it: a new object is stored in the new storage version.
 */
export async function applyCrdVersions(
  kubeConfig: KubeConfig,
  etcdUrl: string,
  crd: Manifest,
  flags: VersionFlags,
  probeNamespace: string,
): Promise<void> {
  const changed = structuredClone(crd) as Manifest & {
    spec: { versions: Array<{ name: string; served: boolean; storage: boolean }> };
  };
  changed.spec.versions = changed.spec.versions.filter((version) => !(flags.removed ?? []).includes(version.name));
  for (const version of changed.spec.versions) {
    version.storage = version.name === flags.storage;
    version.served = !(flags.unserved ?? []).includes(version.name);
  }
  await serverSideApply(kubeConfig, [changed]);
  const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  const name = `storage-probe-${randomUUID().slice(0, 8)}`;
  await eventually(`new objects to be stored in ${flags.storage}`, async () => {
    await customObjects.createNamespacedCustomObject({
      ...geoDatabases,
      namespace: probeNamespace,
      body: geoDatabase(probeNamespace, name, 0),
    });
    const [stored] = await readEtcdPrefix(etcdUrl, `${prefix}${probeNamespace}/${name}`);
    await customObjects.deleteNamespacedCustomObject({ ...geoDatabases, namespace: probeNamespace, name });
    return stored && storedApiVersion(stored) === `geo.example.com/${flags.storage}` ? true : undefined;
  });
  // The CRD change makes the API server rebuild its watch cache; lists answer 429 until it is ready again.
  await eventually('lists to be served again', () =>
    customObjects.listClusterCustomObject({ ...geoDatabases }).then(() => true),
  );
}

export function storedApiVersion(entry: EtcdEntry): string {
  return (JSON.parse(entry.value.toString('utf8')) as { apiVersion: string }).apiVersion;
}

/** What etcd holds for the GeoDatabases of some namespaces (all of them without a list), in key order. */
export async function storedGeoDatabases(etcdUrl: string, namespaces?: string[]): Promise<EtcdEntry[]> {
  if (!namespaces) return readEtcdPrefix(etcdUrl, prefix);
  return (await Promise.all(namespaces.map((namespace) => readEtcdPrefix(etcdUrl, `${prefix}${namespace}/`)))).flat();
}

/**
 * A valid v1 GeoDatabase, varied by i so that a set of them covers what conversion must carry: every field set,
 * a storage class, a second cache, a cache version and replicas (which v1beta1 keeps in the stash), a size spelling.
 */
export function geoDatabase(namespace: string, name: string, i: number): KubeObject {
  const full = i % 3 === 1;
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: {
      name,
      namespace,
      labels: { 'e2e.crdgate/index': String(i) },
      annotations: { 'e2e.crdgate/note': `object ${i}` },
    },
    spec: {
      postgres: { version: '16.4', postgis: '3.4.2' },
      ...(full ? { readReplicas: i % 16 } : {}),
      storage: { size: i % 3 === 2 ? '51200Mi' : `${20 + (i % 50)}Gi`, ...(full ? { storageClassName: 'ssd' } : {}) },
      caches: full
        ? [
            { name: 'tiles', version: '7.0', memory: '1Gi', replicas: 2 },
            { name: 'sessions', memory: '256Mi' },
          ]
        : [],
    },
  };
}

/** The same object in the deprecated v1alpha1: flat fields, one cache. */
export function geoDatabaseV1alpha1(namespace: string, name: string, i: number): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1alpha1',
    kind: 'GeoDatabase',
    metadata: { name, namespace, labels: { 'e2e.crdgate/index': String(i) } },
    spec: {
      postgresVersion: '15.7',
      postgisVersion: '3.4.2',
      replicas: i % 4,
      storageGB: 10 + (i % 7),
      cacheMB: i % 2 === 0 ? 512 : 0,
    },
  };
}

/** Creates objects `count` at a time in flight; every fourth one through v1alpha1. */
export async function createGeoDatabases(
  kubeConfig: KubeConfig,
  namespaces: string[],
  perNamespace: number,
  { inFlight = 8 } = {},
): Promise<string[]> {
  const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  const work = namespaces.flatMap((namespace) => Array.from({ length: perNamespace }, (_, i) => ({ namespace, i })));
  const keys: string[] = [];
  let next = 0;
  async function creator(): Promise<void> {
    while (next < work.length) {
      const { namespace, i } = work[next++]!;
      const name = `db-${String(i).padStart(4, '0')}`;
      const body = i % 4 === 0 ? geoDatabaseV1alpha1(namespace, name, i) : geoDatabase(namespace, name, i);
      const version = String(body.apiVersion).split('/')[1]!;
      await customObjects.createNamespacedCustomObject({ ...geoDatabases, version, namespace, body });
      keys.push(`${namespace}/${name}`);
    }
  }
  await Promise.all(Array.from({ length: inFlight }, creator));
  return keys.sort();
}

export async function createNamespaces(kubeConfig: KubeConfig, prefixName: string, count: number): Promise<string[]> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const run = randomUUID().slice(0, 6);
  const names = Array.from({ length: count }, (_, i) => `${prefixName}-${run}-${i}`);
  for (const name of names) await core.createNamespace({ body: { metadata: { name } } });
  return names;
}

/** What a user cares about in an object, read through v1: spec, labels, annotations other than the stash. */
export interface ObjectContent {
  spec: unknown;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export async function readContents(kubeConfig: KubeConfig, namespaces: string[]): Promise<Map<string, ObjectContent>> {
  const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  const contents = new Map<string, ObjectContent>();
  for (const namespace of namespaces) {
    const list = (await customObjects.listNamespacedCustomObject({ ...geoDatabases, namespace })) as {
      items: KubeObject[];
    };
    for (const item of list.items) {
      const { [stashAnnotation]: _stash, ...annotations } = (item.metadata?.annotations ?? {}) as Record<
        string,
        string
      >;
      contents.set(`${namespace}/${item.metadata!.name}`, {
        spec: item['spec'],
        labels: (item.metadata?.labels ?? {}) as Record<string, string>,
        annotations,
      });
    }
  }
  return contents;
}

export interface MigrateRun {
  code: number;
  stdout: string;
  stderr: string;
  /** With --output json. */
  report: () => MigrationReport;
}

/**
 * `crdgate migrate` in this process, as the CLI runs it. `stop` plays SIGTERM; `onStderr` sees progress as it comes.
 */
export async function runMigrate(
  args: string[],
  { stop, onStderr }: { stop?: Promise<unknown>; onStderr?: (text: string) => void } = {},
): Promise<MigrateRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(['migrate', '--resource', resource, ...args], {
    stdout: (text) => (stdout += text),
    stderr: (text) => {
      stderr += text;
      onStderr?.(text);
    },
    cwd: process.cwd(),
    waitForStop: () => (stop ?? new Promise(() => {})).then(() => 'SIGTERM'),
  });
  return { code, stdout, stderr, report: () => JSON.parse(stdout) as MigrationReport };
}

export async function storedVersions(kubeConfig: KubeConfig): Promise<string[]> {
  const crd = await kubeConfig.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: resource });
  return crd.status?.storedVersions ?? [];
}
