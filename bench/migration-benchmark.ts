import { Agent, request } from 'node:https';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { MigrationReport } from '../src/migrate/migration-report.ts';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../src/control-plane/kube-assets.ts';
import { createCrdgateProcess, removeCrdgateProcess, type CrdgateProcess } from '../test/e2e/support/crdgate-restartable-process.ts';
import { applyCrd, applyWebhookConfigurations, crdgateRegistration } from '../test/e2e/support/crdgate-webhooks.ts';
import { applyCrdVersions, createGeoDatabases, runMigrate, storedApiVersion, storedGeoDatabases } from '../test/e2e/support/storage-migration.ts';
import { textTable } from './report/text-table.ts';

export interface MigrationBenchPlan {
  objects: number;
  concurrency: number;
}

export interface Pass {
  client: 'plain' | 'crdgate';
  objects: number;
  seconds: number;
}

export interface MigrationBenchResult {
  objects: number;
  concurrency: number;
  passes: Pass[];
  /** Objects per second over both of a client's passes. */
  plainObjectsPerSecond: number;
  crdgateObjectsPerSecond: number;
  ratio: number;
}

function summarize(passes: Pass[], concurrency: number): MigrationBenchResult {
  const rate = (client: Pass['client']) => {
    const mine = passes.filter((pass) => pass.client === client);
    return mine.reduce((sum, pass) => sum + pass.objects, 0) / mine.reduce((sum, pass) => sum + pass.seconds, 0);
  };
  const plainObjectsPerSecond = rate('plain');
  const crdgateObjectsPerSecond = rate('crdgate');
  return { objects: passes[0]?.objects ?? 0, concurrency, passes, plainObjectsPerSecond, crdgateObjectsPerSecond, ratio: crdgateObjectsPerSecond / plainObjectsPerSecond };
}

const NAMESPACES = 10;

/**
 * `crdgate migrate` against the loop anyone would write by hand (list a page, PUT each object back unchanged, the
 * same number of writers), through one real kube-apiserver + etcd with crdgate serving conversion and admission.
 * Both passes rewrite every object into the other version, so each write costs the API server the same: the plain
 * loop moves the objects from v1 to v1beta1 storage, then crdgate migrate moves them back to v1.
 */
export async function runMigrationBenchmark(plan: MigrationBenchPlan, progress: (line: string) => void): Promise<MigrationBenchResult> {
  const assets = await resolveKubeAssets({ build: true, log: progress });
  if ('unavailable' in assets) throw new Error(`no control plane for the migration benchmark: ${assets.unavailable}`);
  let plane: ControlPlane | undefined;
  let webhooks: CrdgateProcess | undefined;
  try {
    plane = await startControlPlane({ assetsDir: assets.dir, log: progress });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    // crdgate in a process of its own, as in a cluster, so that the clients under test do not share its event loop.
    webhooks = await createCrdgateProcess(['--log-level', 'warn']);
    await webhooks.start();
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `bench-${i}`);
    for (const name of namespaces) await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
    const registration = crdgateRegistration(webhooks.port, webhooks.ca);
    const crd = registration.crd;
    await applyCrd(kubeConfig, crd);
    // Waits until both webhooks are called: objects created before the mutating one would get their defaults in
    // the first timed pass only.
    await applyWebhookConfigurations(kubeConfig, registration, namespaces[0]!);
    progress(`creating ${plan.objects} GeoDatabases`);
    await createGeoDatabases(kubeConfig, namespaces, Math.ceil(plan.objects / NAMESPACES), { inFlight: 16 });

    // Two rounds in opposite orders, so that neither client always gets the warmer (or the quieter) turn.
    const passes: Pass[] = [];
    const flip = async (client: Pass['client'], storage: string) => {
      await applyCrdVersions(kubeConfig, plane!.etcdUrl, crd, { storage }, namespaces[0]!);
      progress(`${client}: every object into ${storage} storage`);
      const started = performance.now();
      const objects = client === 'plain' ? await plainRewriteLoop(kubeConfig, storage, plan.concurrency) : (await migrate(plane!.kubeconfigPath, plan.concurrency)).objects.seen;
      passes.push({ client, objects, seconds: (performance.now() - started) / 1000 });
      await expectStoredIn(plane!.etcdUrl, `geo.example.com/${storage}`);
    };
    await flip('plain', 'v1beta1');
    await flip('crdgate', 'v1');
    await flip('crdgate', 'v1beta1');
    await flip('plain', 'v1');
    return summarize(passes, plan.concurrency);
  } finally {
    if (webhooks) await removeCrdgateProcess(webhooks);
    await plane?.stop();
  }
}

export function renderMigrationReport(result: MigrationBenchResult): string {
  const label = { plain: 'plain loop of no-op PUTs', crdgate: 'crdgate migrate' };
  const rows = result.passes.map((pass, i) => [String(i + 1), label[pass.client], String(pass.objects), String(result.concurrency), pass.seconds.toFixed(1), (pass.objects / pass.seconds).toFixed(1)]);
  const verdict = result.ratio >= 0.9 ? 'met' : 'NOT MET';
  return [
    `Storage-version migration through kube-apiserver + etcd with crdgate's webhooks (goal: >= 0.9x the plain loop): ${verdict}`,
    textTable(['pass', 'client', 'objects', 'writers', 'seconds', 'objects/s'], rows),
    `plain loop ${result.plainObjectsPerSecond.toFixed(1)} objects/s, crdgate migrate ${result.crdgateObjectsPerSecond.toFixed(1)} objects/s: ${result.ratio.toFixed(2)}x`,
    '',
  ].join('\n');
}

interface ListedItem {
  metadata: { name: string; namespace: string };
}

/** What anyone would write by hand: list a page, PUT each object back as listed with N writers, next page. Returns the count. */
async function plainRewriteLoop(kubeConfig: KubeConfig, version: string, concurrency: number): Promise<number> {
  const options: { ca?: Buffer; cert?: Buffer; key?: Buffer; headers?: Record<string, string> } = {};
  await kubeConfig.applyToHTTPSOptions(options as never);
  const agent = new Agent({ keepAlive: true, ca: options.ca, cert: options.cert, key: options.key });
  const server = new URL(kubeConfig.getCurrentCluster()!.server);
  const call = (method: string, path: string, body?: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        { host: server.hostname, port: server.port, method, path, agent, headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString())) : reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks)}`))));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  let count = 0;
  let token = '';
  do {
    const page = (await call('GET', `/apis/geo.example.com/${version}/geodatabases?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`)) as {
      items: ListedItem[];
      metadata?: { continue?: string };
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < page.items.length) {
          const item = page.items[next++]!;
          await call('PUT', `/apis/geo.example.com/${version}/namespaces/${item.metadata.namespace}/geodatabases/${item.metadata.name}`, item);
          count++;
        }
      }),
    );
    token = page.metadata?.continue ?? '';
  } while (token);
  agent.destroy();
  return count;
}

async function migrate(kubeconfigPath: string, concurrency: number): Promise<MigrationReport> {
  // The client-side rate limit is set out of the way: the comparison is of the clients' own cost.
  const run = await runMigrate(['--kubeconfig', kubeconfigPath, '--concurrency', String(concurrency), '--qps', '100000', '--output', 'json']);
  if (run.code !== 0) throw new Error(`crdgate migrate exited ${run.code}: ${run.stdout}${run.stderr}`);
  return run.report();
}

async function expectStoredIn(etcdUrl: string, apiVersion: string): Promise<void> {
  const versions = new Set((await storedGeoDatabases(etcdUrl)).map(storedApiVersion));
  if (versions.size !== 1 || !versions.has(apiVersion)) throw new Error(`expected every object stored in ${apiVersion}, found ${[...versions].join(', ')}`);
}
