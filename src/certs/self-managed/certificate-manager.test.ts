import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeApiError, type KubeResponse, type KubeWatchApi, type WatchEvent } from '../../kube/kube-api.ts';
import { createLogger } from '../../log.ts';
import { createServerMetrics } from '../../server/metrics.ts';
import { startCertificateManager, type CertificateManager } from './certificate-manager.ts';
import { applyRotation, renewalTime, type RotationPolicy } from './rotation.ts';
import { issuerIn, materialData, readMaterial, secretAnnotations, splitPem, type CertificateMaterial } from './secret-material.ts';

const namespace = 'crdgate-system';
const secretName = 'crdgate-certs';
const leaseName = 'crdgate-certs';
const crdName = 'geodatabases.geo.example.com';
const collections = {
  secrets: `/api/v1/namespaces/${namespace}/secrets`,
  leases: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
  validatingwebhookconfigurations: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
  mutatingwebhookconfigurations: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
  customresourcedefinitions: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
} as const;
type Resource = keyof typeof collections;
const targetNames = [`validatingwebhookconfigurations/crdgate`, `mutatingwebhookconfigurations/crdgate`, `customresourcedefinitions/${crdName}`];

const policy: RotationPolicy = {
  caValidityMs: 60 * 60_000,
  servingValidityMs: 30 * 60_000,
  caOverlapMs: 300,
  dnsNames: ['crdgate.crdgate-system.svc'],
  ipAddresses: [],
  commonName: 'crdgate',
};
/** Renewed every 200 ms; leadership is lost 1 s after the last renewal. */
const leaseDurationMs = 1500;

interface StoredObject {
  metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * A fake API server for the manager's reads, writes and watches: objects by `resource/name`, resourceVersions that
 * make PUT a compare-and-swap, JSON patches with their tests, watches that replay from a resourceVersion, and a hook
 * to refuse requests. `writes` lists what the manager changed, leases aside, in order.
 */
function fakeCluster() {
  let revision = 100;
  const objects = new Map<string, StoredObject>();
  const history: { key: string; revision: number; event: WatchEvent }[] = [];
  const watchers = new Set<{ key: string; onEvent: (event: WatchEvent) => void }>();
  const writes: { line: string; at: number; body: StoredObject }[] = [];
  let refuse: ((line: string) => Error | undefined) | undefined;

  const error = (code: number, message: string, name?: string) => new KubeApiError(code, { message, ...(name ? { details: { name } } : {}) }, {}, 'fake');
  const resourceOf = (collectionPath: string): Resource => {
    const found = (Object.keys(collections) as Resource[]).find((resource) => collections[resource] === collectionPath);
    if (!found) throw new Error(`the fake has no collection ${collectionPath}`);
    return found;
  };
  const parse = (path: string): { resource: Resource; name?: string } => {
    if (Object.values(collections).includes(path as never)) return { resource: resourceOf(path) };
    const cut = path.lastIndexOf('/');
    return { resource: resourceOf(path.slice(0, cut)), name: decodeURIComponent(path.slice(cut + 1)) };
  };

  /** Stores a new version of the object and tells its watchers, as the API server does on every write. */
  function store(key: string, object: StoredObject, type: 'ADDED' | 'MODIFIED'): StoredObject {
    revision++;
    const stored = structuredClone({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } });
    objects.set(key, stored);
    const event: WatchEvent = { type, object: stored };
    history.push({ key, revision, event });
    for (const watcher of watchers) if (watcher.key === key) watcher.onEvent(structuredClone(event));
    return structuredClone(stored);
  }

  function applyJsonPatch(key: string, operations: { op: string; path: string; value: unknown }[]): StoredObject {
    const patched = structuredClone(objects.get(key)!) as Record<string, unknown>;
    for (const { op, path, value } of operations) {
      const steps = path.split('/').slice(1);
      const last = steps.pop()!;
      let parent: Record<string, unknown> = patched;
      for (const step of steps) parent = parent[step] as Record<string, unknown>;
      if (op === 'test' && !isDeepStrictEqual(parent?.[last], value)) throw error(422, `the test at ${path} failed`);
      if (op === 'add') parent[last] = value;
    }
    return patched as StoredObject;
  }

  const api: KubeWatchApi = {
    server: 'https://fake',
    async request(method, path, options = {}): Promise<KubeResponse> {
      const { resource, name } = parse(path);
      const line = `${method} ${resource}${name ? `/${name}` : ''}`;
      const refused = refuse?.(line);
      if (refused) throw refused;
      if (method === 'GET' && !name) {
        const wanted = options.query?.['fieldSelector']?.replace('metadata.name=', '');
        const item = objects.get(`${resource}/${wanted}`);
        return { status: 200, body: { metadata: { resourceVersion: String(revision) }, items: item ? [structuredClone(item)] : [] } };
      }
      const body = options.body as StoredObject;
      const key = `${resource}/${name ?? body.metadata.name}`;
      const current = objects.get(key);
      let written: StoredObject;
      if (method === 'GET') {
        if (!current) throw error(404, `${resource} "${name}" not found`, name);
        return { status: 200, body: structuredClone(current) };
      } else if (method === 'POST') {
        if (current) throw error(409, `${resource} "${body.metadata.name}" already exists`, body.metadata.name);
        written = store(key, body, 'ADDED');
      } else if (!current) {
        throw error(404, `${resource} "${name}" not found`, name);
      } else if (method === 'PUT') {
        if (body.metadata.resourceVersion && body.metadata.resourceVersion !== current.metadata.resourceVersion) throw error(409, 'the object has been modified', name);
        written = store(key, body, 'MODIFIED');
      } else {
        written = store(key, applyJsonPatch(key, body as never), 'MODIFIED');
      }
      if (resource !== 'leases') writes.push({ line, at: Date.now(), body: structuredClone(written) });
      return { status: 200, body: written };
    },
    async watch(path, query, onEvent, signal) {
      const key = `${resourceOf(path)}/${query['fieldSelector']!.replace('metadata.name=', '')}`;
      const from = Number(query['resourceVersion'] || 0);
      for (const missed of history.filter((entry) => entry.key === key && entry.revision > from)) onEvent(structuredClone(missed.event));
      const watcher = { key, onEvent };
      watchers.add(watcher);
      await new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      watchers.delete(watcher);
    },
  };

  return {
    api,
    writes,
    error,
    get openWatches() {
      return watchers.size;
    },
    get: (key: string) => structuredClone(objects.get(key)),
    /** A write by someone else: a person, kubectl apply. */
    put: (key: string, change: (object: StoredObject) => void) => {
      const object = structuredClone(objects.get(key)!);
      change(object);
      store(key, object, 'MODIFIED');
    },
    create: (key: string, object: StoredObject) => store(key, object, 'ADDED'),
    refuse: (predicate: ((line: string) => Error | undefined) | undefined) => (refuse = predicate),
  };
}

type FakeCluster = ReturnType<typeof fakeCluster>;

/** The install's webhook configurations and CRD, their caBundles holding `caBundlePem` (or none). */
function createTargets(cluster: FakeCluster, caBundlePem?: string): void {
  const clientConfig = { service: { namespace, name: 'crdgate', path: '/x' }, ...(caBundlePem ? { caBundle: b64(caBundlePem) } : {}) };
  for (const kind of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'] as const) {
    cluster.create(`${kind}/crdgate`, { metadata: { name: 'crdgate' }, webhooks: [{ name: `${kind.slice(0, 1)}.geo.example.com`, clientConfig: structuredClone(clientConfig) }] });
  }
  cluster.create(`customresourcedefinitions/${crdName}`, {
    metadata: { name: crdName },
    spec: { group: 'geo.example.com', conversion: { strategy: 'Webhook', webhook: { clientConfig: structuredClone(clientConfig), conversionReviewVersions: ['v1'] } } },
  });
}

/** The Secret as a settled install left it. */
function createSecret(cluster: FakeCluster, material: CertificateMaterial): void {
  const { data, stepAt } = materialData(material);
  cluster.create(`secrets/${secretName}`, { metadata: { name: secretName, annotations: stepAt ? { [secretAnnotations.stepAt]: stepAt } : {} }, type: 'Opaque', data });
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const running: CertificateManager[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((manager) => manager.stop()));
});

function start(cluster: FakeCluster, identity = 'replica-a') {
  const logs: { msg: string; [field: string]: unknown }[] = [];
  const served: string[] = [];
  const metrics = createServerMetrics().selfManaged;
  const manager = startCertificateManager({
    api: cluster.api,
    namespace,
    secretName,
    leaseName,
    webhookConfigurationName: 'crdgate',
    crdNames: [crdName],
    identity,
    policy,
    leaseDurationMs,
    serve: (certificate) => (served.push(certificate.cert.toString()), true),
    metrics,
    logger: createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line)) } }),
  });
  running.push(manager);
  const counter = async (metric: 'rotations' | 'caBundleRepairs' | 'leader' | 'ready', labels: Record<string, string> = {}) =>
    (await metrics[metric].get()).values.filter((value) => Object.entries(labels).every(([key, wanted]) => (value.labels as Record<string, unknown>)[key] === wanted)).reduce((sum, value) => sum + value.value, 0);
  return { manager, logs, served, counter, messages: () => logs.map((line) => line.msg) };
}

// A bound for a busy machine (two test files at once on 2 cores), well inside the test's own 30 s: what is waited for
// takes milliseconds alone.
async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function secretMaterial(cluster: FakeCluster): CertificateMaterial {
  const secret = cluster.get(`secrets/${secretName}`)!;
  const reading = readMaterial(secret['data'] as Record<string, string>, secret.metadata.annotations);
  if (reading.state !== 'usable') throw new Error(`the Secret is ${reading.state}`);
  return reading.material;
}

function caBundles(cluster: FakeCluster): string[] {
  const bundle = (config: unknown) => Buffer.from((config as { caBundle?: string }).caBundle ?? '', 'base64').toString('utf8');
  const webhook = (key: string) => bundle(((cluster.get(key)!['webhooks'] as { clientConfig: unknown }[])[0]!).clientConfig);
  const crd = cluster.get(`customresourcedefinitions/${crdName}`)!['spec'] as { conversion: { webhook: { clientConfig: unknown } } };
  return [webhook('validatingwebhookconfigurations/crdgate'), webhook('mutatingwebhookconfigurations/crdgate'), bundle(crd.conversion.webhook.clientConfig)];
}

const settled = () => applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now());

// Each fresh install makes RSA keys: on a busy machine that takes seconds, hence the timeouts.
describe('the certificate manager against a fake API server', { timeout: 30_000 }, () => {
  it('on a fresh install issues the Secret, serves its pair, fills in every caBundle and becomes ready', async () => {
    const cluster = fakeCluster();
    createTargets(cluster);
    const { manager, served, counter, messages } = start(cluster);
    expect(manager.notReadyBecause()).toMatch(/^not read yet: secrets\/crdgate-system\/crdgate-certs, /);

    await until('ready', () => manager.notReadyBecause() === undefined);
    expect(cluster.writes.map((write) => write.line)).toEqual(['POST secrets', ...targetNames.map((name) => `PATCH ${name}`)]);
    const material = secretMaterial(cluster);
    expect(material.caBundle).toEqual([material.signingCa.certPem]);
    expect(issuerIn(material.caBundle, material.serving.certPem)).toBe(material.signingCa.certPem);
    expect(served).toEqual([material.serving.certPem]);
    expect(caBundles(cluster)).toEqual([material.signingCa.certPem, material.signingCa.certPem, material.signingCa.certPem]);
    expect(await counter('rotations', { kind: 'issue', result: 'success' })).toBe(1);
    // Filled in for the first time: not a repair.
    expect(await counter('caBundleRepairs')).toBe(0);
    expect(messages().filter((message) => message === 'caBundle injected')).toHaveLength(3);
    expect(await counter('leader')).toBe(1);
    expect(await counter('ready')).toBe(1);
  });

  it('renews the serving certificate with the same CA when a third of its lifetime remains, at the time the plan set', async () => {
    const cluster = fakeCluster();
    const seed = applyRotation({ kind: 'issue', reason: 'test' }, undefined, { ...policy, servingValidityMs: 1500 }, Date.now());
    createSecret(cluster, seed);
    createTargets(cluster, seed.signingCa.certPem);
    const { manager, served, counter } = start(cluster);

    await until('ready', () => manager.notReadyBecause() === undefined);
    await until('renewed', () => secretMaterial(cluster).serving.certPem !== seed.serving.certPem);
    expect(cluster.writes.map((write) => write.line)).toEqual([`PUT secrets/${secretName}`]);
    expect(cluster.writes[0]!.at).toBeGreaterThanOrEqual(renewalTime(seed.serving.certPem));
    const renewed = secretMaterial(cluster);
    expect(renewed.signingCa.certPem).toBe(seed.signingCa.certPem);
    expect(renewed.caBundle).toEqual(seed.caBundle);
    expect(issuerIn(renewed.caBundle, renewed.serving.certPem)).toBe(seed.signingCa.certPem);
    expect(served).toEqual([seed.serving.certPem, renewed.serving.certPem]);
    expect(await counter('rotations', { kind: 'serving', result: 'success' })).toBe(1);
    expect(manager.notReadyBecause()).toBeUndefined();
  });

  it('rolls the CA over step by step: the new CA joins every caBundle before it signs, the old one leaves after the overlap', async () => {
    const cluster = fakeCluster();
    const seed = settled();
    createSecret(cluster, seed);
    createTargets(cluster, seed.signingCa.certPem);
    const { manager, served, counter, logs } = start(cluster);
    await until('ready', () => manager.notReadyBecause() === undefined);

    cluster.put(`secrets/${secretName}`, (secret) => (secret.metadata.annotations![secretAnnotations.rotate] = 'ca'));
    await until('the old CA retired', () => secretMaterial(cluster).caBundle.length === 1 && secretMaterial(cluster).signingCa.certPem !== seed.signingCa.certPem);
    await until('every caBundle holds the new CA alone', () => caBundles(cluster).every((bundle) => bundle === secretMaterial(cluster).signingCa.certPem));

    const steps = logs.filter((line) => line.msg === 'certificate rotation').map((line) => line['kind']);
    expect(steps).toEqual(['ca_add', 'ca_switch', 'ca_retire']);
    const patches = targetNames.map((name) => `PATCH ${name}`);
    const secretPut = `PUT secrets/${secretName}`;
    // ca_add; the bundles take both CAs; ca_switch; ca_retire; the bundles drop the old CA.
    expect(cluster.writes.map((write) => write.line)).toEqual([secretPut, ...patches, secretPut, secretPut, ...patches]);
    const [added, , , , switched, retired] = cluster.writes.map((write) => write.body);
    const read = (secret: StoredObject) => readMaterial(secret['data'] as Record<string, string>, secret.metadata.annotations);
    const addedMaterial = read(added!);
    if (addedMaterial.state !== 'usable') throw new Error('ca_add wrote an unusable Secret');
    const next = addedMaterial.material.nextCa!.certPem;
    expect(added!.metadata.annotations).not.toHaveProperty(secretAnnotations.rotate);
    expect(addedMaterial.material.caBundle).toEqual([seed.signingCa.certPem, next]);
    for (const patch of cluster.writes.slice(1, 4)) expect(JSON.stringify(patch.body)).toContain(b64(seed.signingCa.certPem + next));
    // The switch waited for the overlap, and so did the retirement.
    const stepAt = (secret: StoredObject) => Date.parse(secret.metadata.annotations![secretAnnotations.stepAt]!);
    expect(stepAt(switched!) - stepAt(added!)).toBeGreaterThanOrEqual(policy.caOverlapMs);
    expect(stepAt(retired!) - stepAt(switched!)).toBeGreaterThanOrEqual(policy.caOverlapMs);
    const final = secretMaterial(cluster);
    expect(final.signingCa.certPem).toBe(splitPem(next)[0]);
    expect(served.at(-1)).toBe(final.serving.certPem);
    expect(issuerIn([next], final.serving.certPem)).toBeDefined();
    for (const kind of ['ca_add', 'ca_switch', 'ca_retire']) expect(await counter('rotations', { kind, result: 'success' })).toBe(1);
    expect(await counter('caBundleRepairs')).toBe(0);
    expect(manager.notReadyBecause()).toBeUndefined();
  });

  it('writes nothing once it has lost the lease, and does what was asked meanwhile when it leads again', async () => {
    const cluster = fakeCluster();
    createTargets(cluster);
    const { manager, counter, messages } = start(cluster);
    await until('ready', () => manager.notReadyBecause() === undefined);
    const before = secretMaterial(cluster);
    const writes = cluster.writes.length;

    cluster.refuse((line) => (line === `PUT leases/${leaseName}` ? cluster.error(500, 'etcd is down') : undefined));
    await until('leadership lost', async () => (await counter('leader')) === 0);
    expect(messages()).toContain('lost leadership');
    cluster.put(`secrets/${secretName}`, (secret) => (secret.metadata.annotations![secretAnnotations.rotate] = 'serving'));
    await sleep(500);
    expect(cluster.writes).toHaveLength(writes);

    cluster.refuse(undefined);
    await until('renewed after leading again', () => secretMaterial(cluster).serving.certPem !== before.serving.certPem);
    expect(await counter('leader')).toBe(1);
    expect(cluster.writes.slice(writes).map((write) => write.line)).toEqual([`PUT secrets/${secretName}`]);
    expect(cluster.get(`secrets/${secretName}`)!.metadata.annotations).not.toHaveProperty(secretAnnotations.rotate);
    expect(await counter('rotations', { kind: 'serving', result: 'success' })).toBe(1);
  });

  it('puts back a caBundle someone blanked, counts it as a repair, and is not ready until then', async () => {
    const cluster = fakeCluster();
    createTargets(cluster);
    const { manager, counter, logs } = start(cluster);
    await until('ready', () => manager.notReadyBecause() === undefined);
    const ca = secretMaterial(cluster).signingCa.certPem;
    const writes = cluster.writes.length;

    cluster.put('validatingwebhookconfigurations/crdgate', (config) => ((config['webhooks'] as { clientConfig: { caBundle: string } }[])[0]!.clientConfig.caBundle = ''));
    await until('repaired', async () => (await counter('caBundleRepairs', { resource: 'validatingwebhookconfigurations' })) === 1);
    await until('ready again', () => manager.notReadyBecause() === undefined);
    expect(caBundles(cluster)).toEqual([ca, ca, ca]);
    expect(cluster.writes.slice(writes).map((write) => write.line)).toEqual(['PATCH validatingwebhookconfigurations/crdgate']);
    expect(logs.map((line) => line.msg)).toContain('caBundle repaired');
    const notReady = logs.filter((line) => line.msg === 'certificates not ready').map((line) => line['reason']);
    expect(notReady).toContain('the caBundle of validatingwebhookconfigurations/crdgate lacks the CA of the served certificate');
    expect(await counter('caBundleRepairs')).toBe(1);
  });

  it('stops: gives up the lease, ends every watch, and writes nothing after', async () => {
    const cluster = fakeCluster();
    createTargets(cluster);
    const { manager } = start(cluster);
    await until('ready', () => manager.notReadyBecause() === undefined);
    expect(cluster.openWatches).toBe(4);
    expect((cluster.get(`leases/${leaseName}`)!['spec'] as { holderIdentity: string }).holderIdentity).toBe('replica-a');

    await manager.stop();
    expect(cluster.openWatches).toBe(0);
    expect((cluster.get(`leases/${leaseName}`)!['spec'] as { holderIdentity: string }).holderIdentity).toBe('');
    const writes = cluster.writes.length;
    cluster.put(`secrets/${secretName}`, (secret) => (secret.metadata.annotations![secretAnnotations.rotate] = 'serving'));
    cluster.put('validatingwebhookconfigurations/crdgate', (config) => ((config['webhooks'] as { clientConfig: { caBundle: string } }[])[0]!.clientConfig.caBundle = ''));
    await sleep(300);
    expect(cluster.writes).toHaveLength(writes);
  });

  it('leaves a Secret it cannot use as it is, and starts over with a new CA when a person asks', async () => {
    const cluster = fakeCluster();
    const seed = settled();
    createSecret(cluster, seed);
    cluster.put(`secrets/${secretName}`, (secret) => delete (secret['data'] as Record<string, string>)['ca.key']);
    createTargets(cluster, seed.signingCa.certPem);
    const { manager, logs } = start(cluster);
    await until('said so', () => logs.some((line) => line.msg.startsWith('the certificate Secret cannot be used and is left as it is')));
    expect(manager.notReadyBecause()).toBe(`secrets/${namespace}/${secretName} cannot be used: the Secret has no ca.key`);
    await sleep(300);
    expect(cluster.writes).toEqual([]);

    cluster.put(`secrets/${secretName}`, (secret) => (secret.metadata.annotations![secretAnnotations.rotate] = 'ca'));
    await until('ready with a new CA', () => manager.notReadyBecause() === undefined);
    expect(secretMaterial(cluster).signingCa.certPem).not.toBe(seed.signingCa.certPem);
    expect(logs.filter((line) => line.msg === 'certificate rotation').map((line) => line['kind'])).toEqual(['issue']);
  });

  it('a replica writes nothing while another holds the lease, and takes over once the lease goes unrenewed', async () => {
    const cluster = fakeCluster();
    createTargets(cluster);
    cluster.create(`leases/${leaseName}`, { metadata: { name: leaseName }, spec: { holderIdentity: 'replica-a', leaseDurationSeconds: 4, renewTime: new Date().toISOString() } });
    const { manager, counter } = start(cluster, 'replica-b');
    await sleep(800);
    expect(cluster.writes).toEqual([]);
    expect(await counter('leader')).toBe(0);
    expect(manager.notReadyBecause()).toBe(`secrets/${namespace}/${secretName} holds no certificate yet: the replica holding the Lease issues one`);

    await until('ready once it took the lease', () => manager.notReadyBecause() === undefined);
    expect((cluster.get(`leases/${leaseName}`)!['spec'] as { holderIdentity: string }).holderIdentity).toBe('replica-b');
    expect(cluster.writes.map((write) => write.line)).toEqual(['POST secrets', ...targetNames.map((name) => `PATCH ${name}`)]);
  });

  it('a replica that does not hold the lease serves the pair and follows the caBundles, and writes nothing', async () => {
    const cluster = fakeCluster();
    createTargets(cluster);
    const leader = start(cluster, 'replica-a');
    await until('the leader is ready', () => leader.manager.notReadyBecause() === undefined);
    const writes = cluster.writes.length;
    const follower = start(cluster, 'replica-b');
    await until('the follower is ready', () => follower.manager.notReadyBecause() === undefined);
    expect(follower.served).toEqual([secretMaterial(cluster).serving.certPem]);
    expect(await follower.counter('leader')).toBe(0);
    await sleep(300);
    expect(cluster.writes).toHaveLength(writes);
  });
});
