import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { Manifest } from '../src/render/manifest.ts';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../src/control-plane/kube-assets.ts';
import {
  createCrdgateProcess,
  removeCrdgateProcess,
  type CrdgateProcess,
} from '../test/e2e/support/crdgate-restartable-process.ts';
import { applyCrd, applyWebhookConfigurations, crdgateRegistration } from '../test/e2e/support/crdgate-webhooks.ts';
import { spawnMigrate } from '../test/e2e/support/migrate-process.ts';
import {
  applyCrdVersions,
  createGeoDatabases,
  storedApiVersion,
  storedGeoDatabases,
} from '../test/e2e/support/storage-migration.ts';
import { buildCompiledCopy, type CompiledBuild } from './compiled-build.ts';
import { textTable } from './report/text-table.ts';
import { readPeakRss } from './support/read-peak-rss.ts';

export interface MigrationBenchPlan {
  objects: number;
  /** Writers of the plain loop, and `--concurrency` of each crdgate migrate process (as the rendered Job runs it). */
  concurrency: number;
  /** The shard counts of the crdgate passes: each runs twice, going up and coming down. */
  shards: number[];
  /** When set: grow to this many objects after the passes, and measure one more crdgate migrate's peak RSS. */
  memoryObjects?: number;
}

export interface Pass {
  client: 'plain' | 'crdgate';
  /** crdgate migrate processes at once, each with `--shard I/N` when more than one; the plain loop is one. */
  shards: number;
  writers: number;
  objects: number;
  seconds: number;
  /** crdgate: the highest peak resident set of its processes, in bytes. */
  peakRssBytes?: number;
}

export interface MemoryPoint {
  objects: number;
  /** The peak resident set of one crdgate migrate process migrating them all, in bytes. */
  peakRssBytes: number;
}

export interface MigrationBenchResult {
  objects: number;
  concurrency: number;
  passes: Pass[];
  /** Objects per second over all of a client's passes (crdgate: its one-process passes). */
  plainObjectsPerSecond: number;
  crdgateObjectsPerSecond: number;
  ratio: number;
  byShards: Array<{ shards: number; writers: number; objectsPerSecond: number }>;
  /** Peak RSS of one process at `objects`, and at `memoryObjects` when the plan has it. */
  memory: MemoryPoint[];
  /** The one-process pass over `memoryObjects`, when the plan has it. */
  memoryPass?: Pass;
}

const rate = (passes: Pass[]) =>
  passes.reduce((sum, pass) => sum + pass.objects, 0) / passes.reduce((sum, pass) => sum + pass.seconds, 0);

function summarize(plan: MigrationBenchPlan, passes: Pass[], memoryPass: Pass | undefined): MigrationBenchResult {
  const crdgate = (shards: number) => passes.filter((pass) => pass.client === 'crdgate' && pass.shards === shards);
  const plainObjectsPerSecond = rate(passes.filter((pass) => pass.client === 'plain'));
  const crdgateObjectsPerSecond = rate(crdgate(1));
  const peakOfOne = Math.max(...crdgate(1).map((pass) => pass.peakRssBytes ?? 0));
  return {
    objects: plan.objects,
    concurrency: plan.concurrency,
    passes,
    plainObjectsPerSecond,
    crdgateObjectsPerSecond,
    ratio: crdgateObjectsPerSecond / plainObjectsPerSecond,
    byShards: plan.shards.map((shards) => ({
      shards,
      writers: shards * plan.concurrency,
      objectsPerSecond: rate(crdgate(shards)),
    })),
    memory: [
      { objects: plan.objects, peakRssBytes: peakOfOne },
      ...(memoryPass ? [{ objects: memoryPass.objects, peakRssBytes: memoryPass.peakRssBytes ?? 0 }] : []),
    ],
    ...(memoryPass ? { memoryPass } : {}),
  };
}

const NAMESPACES = 10;

/**
 * `crdgate migrate` against the loop anyone would write by hand (list a page, PUT each object back unchanged, the
 * same number of writers), through one real kube-apiserver + etcd with crdgate serving conversion and admission.
 * Every pass rewrites every object into the other version, so each write costs the API server the same: the plain
 * loop moves the objects from v1 to v1beta1 storage, then crdgate migrate moves them back to v1, and so on. crdgate
 * migrate runs as a Job's pods run it: compiled, one process per shard, each measured for its peak memory.
 */
export async function runMigrationBenchmark(
  plan: MigrationBenchPlan,
  progress: (line: string) => void,
): Promise<MigrationBenchResult> {
  const assets = await resolveKubeAssets({ build: true, log: progress });
  if ('unavailable' in assets) throw new Error(`no control plane for the migration benchmark: ${assets.unavailable}`);
  let plane: ControlPlane | undefined;
  let webhooks: CrdgateProcess | undefined;
  let build: CompiledBuild | undefined;
  const scratch = await mkdtemp(join(tmpdir(), 'crdgate-bench-migration-'));
  try {
    progress('compiling crdgate, as the image runs it');
    build = await buildCompiledCopy();
    if (build.diagnostics) progress(`tsc reported (the JavaScript was emitted all the same):\n${build.diagnostics}`);
    plane = await startControlPlane({ assetsDir: assets.dir, log: progress });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    // crdgate in a process of its own, as in a cluster, so that the clients under test do not share its event loop.
    webhooks = await createCrdgateProcess(['--log-level', 'warn']);
    await webhooks.start();
    const namespaces = await createNamespaces(kubeConfig, 'bench', NAMESPACES);
    const registration = crdgateRegistration(webhooks.port, webhooks.ca);
    const crd = registration.crd;
    await applyCrd(kubeConfig, crd);
    // Waits until both webhooks are called: objects created before the mutating one would get their defaults in
    // the first timed pass only.
    await applyWebhookConfigurations(kubeConfig, registration, namespaces[0]!);
    progress(`creating ${plan.objects} GeoDatabases`);
    await createGeoDatabases(kubeConfig, namespaces, Math.ceil(plan.objects / NAMESPACES), { inFlight: 16 });

    const passes: Pass[] = [];
    let storage = 'v1';
    const flip = async (client: Pass['client'], shards: number): Promise<Pass> => {
      storage = storage === 'v1' ? 'v1beta1' : 'v1';
      await switchStorage(kubeConfig, plane!.etcdUrl, crd, storage, namespaces[0]!, progress);
      progress(`${client}${client === 'crdgate' ? ` x${shards}` : ''}: every object into ${storage} storage`);
      const started = performance.now();
      const run =
        client === 'plain'
          ? { objects: await plainRewriteLoop(kubeConfig, storage, plan.concurrency) }
          : await migrateProcesses(
              build!,
              plane!.kubeconfigPath,
              plan.concurrency,
              shards,
              { namespace: namespaces[0]!, name: `record-${passes.length + 1}` },
              scratch,
            );
      const pass: Pass = {
        client,
        shards,
        writers: shards * plan.concurrency,
        seconds: (performance.now() - started) / 1000,
        ...run,
      };
      await expectStoredIn(plane!.etcdUrl, `geo.example.com/${storage}`);
      return pass;
    };
    // Up and down again, the plain loop first and last: neither client, nor any shard count, always gets the
    // warmer (or the quieter) turn.
    const order: Array<[Pass['client'], number]> = [
      ['plain', 1],
      ...plan.shards.map((n): [Pass['client'], number] => ['crdgate', n]),
    ];
    for (const [client, shards] of [...order, ...[...order].reverse()]) passes.push(await flip(client, shards));

    let memoryPass: Pass | undefined;
    if (plan.memoryObjects !== undefined && plan.memoryObjects > plan.objects) {
      const more = await createNamespaces(kubeConfig, 'bench-more', NAMESPACES);
      progress(`creating ${plan.memoryObjects - plan.objects} more GeoDatabases, ${plan.memoryObjects} in all`);
      await createGeoDatabases(kubeConfig, more, Math.ceil((plan.memoryObjects - plan.objects) / NAMESPACES), {
        inFlight: 16,
      });
      memoryPass = await flip('crdgate', 1);
    }
    return summarize(plan, passes, memoryPass);
  } finally {
    if (webhooks) await removeCrdgateProcess(webhooks);
    await plane?.stop();
    await build?.remove();
    await rm(scratch, { recursive: true, force: true });
  }
}

export function renderMigrationReport(result: MigrationBenchResult): string {
  const label = { plain: 'plain loop of no-op PUTs', crdgate: 'crdgate migrate' };
  const mib = (bytes: number | undefined) => (bytes === undefined ? '-' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
  const rows = [...result.passes, ...(result.memoryPass ? [result.memoryPass] : [])].map((pass, i) => [
    i < result.passes.length ? String(i + 1) : 'memory',
    label[pass.client],
    pass.client === 'plain' ? '-' : String(pass.shards),
    String(pass.writers),
    String(pass.objects),
    pass.seconds.toFixed(1),
    (pass.objects / pass.seconds).toFixed(1),
    mib(pass.peakRssBytes),
  ]);
  const verdict = result.ratio >= 0.9 ? 'met' : 'NOT MET';
  const [small, large] = result.memory;
  const memoryLine = large
    ? `peak RSS of one crdgate migrate process: ${small!.objects} objects ${mib(small!.peakRssBytes)}, ${large.objects} objects ${mib(large.peakRssBytes)}: ` +
      `${(large.peakRssBytes / small!.peakRssBytes).toFixed(2)}x for ${(large.objects / small!.objects).toFixed(0)}x the objects ` +
      `(goal: flat, within 10%: ${large.peakRssBytes <= small!.peakRssBytes * 1.1 ? 'met' : 'NOT MET'})`
    : `peak RSS of one crdgate migrate process: ${small!.objects} objects ${mib(small!.peakRssBytes)} (--migration-memory-objects N measures it at N too)`;
  return [
    `Storage-version migration through kube-apiserver + etcd with crdgate's webhooks (goal: crdgate migrate >= 0.9x the plain loop): ${verdict}`,
    textTable(['pass', 'client', 'shards', 'writers', 'objects', 'seconds', 'objects/s', 'peak RSS'], rows),
    `plain loop ${result.plainObjectsPerSecond.toFixed(1)} objects/s, crdgate migrate ${result.crdgateObjectsPerSecond.toFixed(1)} objects/s: ${result.ratio.toFixed(2)}x`,
    `by shards (processes in parallel, ${result.concurrency} writers each): ${result.byShards.map((entry) => `${entry.shards}: ${entry.objectsPerSecond.toFixed(1)}`).join(', ')} objects/s ` +
      `(the plain loop: ${result.plainObjectsPerSecond.toFixed(1)}). Expected flat on this machine: one kube-apiserver and etcd on 2 cores are the limit, not the client`,
    memoryLine,
    '',
  ].join('\n');
}

/**
 * The CRD with another storage version, once the API server stores new objects in it and serves lists again. A
 * storage change rebuilds the API server's watch cache, which lists wait for: with 100,000 objects on a busy machine
 * that can take longer than the e2e helper's 30 s, and applying the same CRD again is harmless.
 */
async function switchStorage(
  kubeConfig: KubeConfig,
  etcdUrl: string,
  crd: Manifest,
  storage: string,
  probeNamespace: string,
  progress: (line: string) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyCrdVersions(kubeConfig, etcdUrl, crd, { storage }, probeNamespace);
    } catch (error) {
      if (attempt === 5) throw error;
      progress(
        `still waiting for the API server after the switch to ${storage}: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
}

async function createNamespaces(kubeConfig: KubeConfig, prefix: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const name of names) await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return names;
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
        {
          host: server.hostname,
          port: server.port,
          method,
          path,
          agent,
          headers: {
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json' } : {}),
            ...options.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(JSON.parse(Buffer.concat(chunks).toString()))
              : reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks)}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  let count = 0;
  let token = '';
  do {
    const page = (await call(
      'GET',
      `/apis/geo.example.com/${version}/geodatabases?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`,
    )) as {
      items: ListedItem[];
      metadata?: { continue?: string };
    };
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < page.items.length) {
          const item = page.items[next++]!;
          await call(
            'PUT',
            `/apis/geo.example.com/${version}/namespaces/${item.metadata.namespace}/geodatabases/${item.metadata.name}`,
            item,
          );
          count++;
        }
      }),
    );
    token = page.metadata?.continue ?? '';
  } while (token);
  agent.destroy();
  return count;
}

/**
 * `crdgate migrate` as `shards` processes at once (pod I of an Indexed Job runs `--shard I/N --record NS/NAME`),
 * compiled, each with the rendered Job's concurrency. The client-side rate limit is set out of the way: the
 * comparison is of the clients' own cost. Returns the objects they wrote between them and the highest peak RSS.
 */
async function migrateProcesses(
  build: CompiledBuild,
  kubeconfigPath: string,
  concurrency: number,
  shards: number,
  record: { namespace: string; name: string },
  scratch: string,
): Promise<{ objects: number; peakRssBytes: number }> {
  const peakRssModule = pathToFileURL(join(build.benchDir, 'support', 'report-peak-rss.js')).href;
  const runs = await Promise.all(
    Array.from({ length: shards }, async (_, index) => {
      const peakFile = join(scratch, `peak-rss-${record.name}-${index}`);
      const args = [
        '--kubeconfig',
        kubeconfigPath,
        '--concurrency',
        String(concurrency),
        '--qps',
        '100000',
        '--output',
        'json',
      ];
      if (shards > 1) args.push('--shard', `${index}/${shards}`, '--record', `${record.namespace}/${record.name}`);
      // With the heap settings of the rendered Job's pod, not V8's defaults for this machine.
      const run = spawnMigrate(args, {
        cliPath: build.cliPath,
        nodeArgs: ['--import', peakRssModule],
        env: { CRDGATE_BENCH_PEAK_RSS_FILE: peakFile },
      });
      const { code } = await run.exited;
      if (code !== 0)
        throw new Error(`crdgate migrate (shard ${index}/${shards}) exited ${code}: ${run.stdout()}${run.stderr()}`);
      // The process and the native engine's process below it, where it runs one.
      const peakRssBytes = (await readPeakRss(peakFile)).totalBytes;
      return { report: run.report(), peakRssBytes };
    }),
  );
  // Every shard succeeded, so the last to record its success must have trimmed storedVersions.
  if (!runs.some((run) => run.report.outcome === 'migrated'))
    throw new Error(`no shard trimmed storedVersions: ${runs.map((run) => run.report.outcome).join(', ')}`);
  return {
    objects: runs.reduce((sum, run) => sum + run.report.objects.seen, 0),
    peakRssBytes: Math.max(...runs.map((run) => run.peakRssBytes)),
  };
}

async function expectStoredIn(etcdUrl: string, apiVersion: string): Promise<void> {
  const versions = new Set((await storedGeoDatabases(etcdUrl)).map(storedApiVersion));
  if (versions.size !== 1 || !versions.has(apiVersion))
    throw new Error(`expected every object stored in ${apiVersion}, found ${[...versions].join(', ')}`);
}
