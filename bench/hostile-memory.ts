import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { serveDefaults } from '../src/config.ts';
import { maxJsonValues } from '../src/server/body.ts';
import { findFreePort } from '../src/control-plane/free-port.ts';
import { deploymentNodeOptions } from './deployment-resources.ts';
import { fullValue, largeStructuralSchema } from '../src/contract/schema/large-schema.fixture.ts';
import { largeSchemaKind } from './support/large-schema-contract.ts';
import { makeFreshCertDir } from './support/fresh-cert-dir.ts';
import { textTable } from './report/text-table.ts';

// `node_modules/.bin/node bench/hostile-memory.ts`: the peak memory (VmHWM) of `crdgate serve`, with the heap flags
// of the rendered Deployment (or CRDGATE_NODE_OPTIONS), under the most memory-hungry input within the body limits:
// as many tiny values as are parsed, which cost JSON.parse far more than their bytes. The rendered Deployment's memory limit is sized
// from these numbers (src/render/server-workload.ts). Linux only (reads /proc).
// With --large-schema, crdgate also serves a kind whose schema is the size of the largest operator CRDs
// (support/large-schema-contract.ts), made hot by 3,000 CREATE reviews before the same inputs: what such a kind adds.

interface Scenario {
  name: string;
  path: string;
  body: () => string;
  concurrency: number;
  repeat: number;
}

const conditions = (count: number, item = '{}') => `[${Array.from({ length: count }, () => item).join(',')}]`;
const hub = (conditionList: string, version = 'v1') =>
  `{"apiVersion":"geo.example.com/${version}","kind":"GeoDatabase","metadata":{"name":"db","namespace":"maps"},` +
  `"spec":{"postgres":{"version":"16.4","postgis":"3.4.2"},"storage":{"size":"20Gi"}},"status":{"conditions":${conditionList}}}`;
const admission = (operation: string, object: string, oldObject: string) =>
  `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"geo.example.com",` +
  `"version":"v1","kind":"GeoDatabase"},"operation":"${operation}","name":"db","namespace":"maps","object":${object},"oldObject":${oldObject}}}`;
const conversion = (objects: string[]) =>
  `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"geo.example.com/v1alpha1","objects":[${objects.join(',')}]}}`;

// Each `{}` counts twice against the value limit (its brace and its comma): this many is the most that passes.
const mostObjects = Math.floor(maxJsonValues / 2) - 100;
const fullCondition =
  '{"type":"Ready","status":"True","reason":"Fine","message":"ok","lastTransitionTime":"2026-11-22T09:12:31Z"}';
const fullConditions = Math.floor((serveDefaults.admissionBodyBytes - 4096) / (fullCondition.length + 1));
const scenarios: Scenario[] = [
  {
    name: 'valid 1 KiB CREATE (baseline)',
    path: '/validate',
    body: () => admission('CREATE', hub('[]'), 'null'),
    concurrency: 1,
    repeat: 20,
  },
  {
    name: `CREATE of ${mostObjects} empty conditions (most values parsed)`,
    path: '/validate',
    body: () => admission('CREATE', hub(conditions(mostObjects)), 'null'),
    concurrency: 1,
    repeat: 3,
  },
  {
    name: 'same to /mutate',
    path: '/mutate',
    body: () => admission('CREATE', hub(conditions(mostObjects)), 'null'),
    concurrency: 1,
    repeat: 3,
  },
  {
    name: `7 MiB CREATE of ${fullConditions} full conditions`,
    path: '/validate',
    body: () => admission('CREATE', hub(conditions(fullConditions, fullCondition)), 'null'),
    concurrency: 1,
    repeat: 2,
  },
  {
    name: 'UPDATE, two objects of half as many',
    path: '/validate',
    body: () => {
      const object = hub(conditions(mostObjects / 2));
      return admission('UPDATE', object, object);
    },
    concurrency: 1,
    repeat: 3,
  },
  {
    name: '4 such CREATEs at once',
    path: '/validate',
    body: () => admission('CREATE', hub(conditions(mostObjects)), 'null'),
    concurrency: 4,
    repeat: 2,
  },
  {
    name: '7 MiB CREATE of 2.3M empty conditions (refused: 413)',
    path: '/validate',
    body: () => admission('CREATE', hub(conditions(Math.floor((serveDefaults.admissionBodyBytes - 4096) / 3))), 'null'),
    concurrency: 1,
    repeat: 2,
  },
  {
    name: 'ConversionReview, 500 objects, most values parsed',
    path: '/convert',
    body: () =>
      conversion(Array.from({ length: 500 }, () => hub(conditions(Math.floor(mostObjects / 500) - 20), 'v1beta1'))),
    concurrency: 1,
    repeat: 2,
  },
  {
    name: '3 x 16 MiB ConversionReviews of long strings at once (one: 503)',
    path: '/convert',
    body: () =>
      conversion(
        Array.from({ length: 500 }, () =>
          hub('[]', 'v1beta1').replace(
            '"name":"db"',
            `"name":"db","annotations":{"a":"${'x'.repeat(Math.floor((serveDefaults.conversionBodyBytes - 256 * 1024) / 500))}"}`,
          ),
        ),
      ),
    concurrency: 3,
    repeat: 2,
  },
];

const largeSchemaReview = () => {
  const { group, version, kind, plural } = largeSchemaKind;
  const object = {
    apiVersion: `${group}/${version}`,
    kind,
    metadata: { name: 'large', namespace: 'maps' },
    ...(fullValue(largeStructuralSchema(), 1) as object),
  };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u',
      kind: { group, version, kind },
      resource: { group, version, resource: plural },
      operation: 'CREATE',
      name: 'large',
      namespace: 'maps',
      object,
      oldObject: null,
    },
  });
};
const largeSchemaScenario: Scenario = {
  name: '3,000 CREATEs of the large-schema kind (32 KiB objects)',
  path: '/validate',
  body: largeSchemaReview,
  concurrency: 4,
  repeat: 750,
};
const contractModules = (...paths: string[]) =>
  paths.flatMap((path) => ['--contract', fileURLToPath(new URL(path, import.meta.url))]);

async function main(): Promise<void> {
  const withLargeSchema = process.argv.includes('--large-schema');
  const certs = await makeFreshCertDir();
  const port = await findFreePort();
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  // In NODE_OPTIONS, as the pod passes them: Node takes fewer V8 flags there than on its command line.
  const nodeOptions = process.env['CRDGATE_NODE_OPTIONS'] ?? deploymentNodeOptions();
  const contracts = withLargeSchema
    ? contractModules('../test/e2e/support/contracts/geodatabase.ts', './support/large-schema-contract.ts')
    : [];
  const child = spawn(
    process.execPath,
    [
      cli,
      'serve',
      ...contracts,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--cert-dir',
      certs.dir,
      '--drain-delay',
      '0',
      '--log-level',
      'warn',
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, NODE_OPTIONS: nodeOptions },
    },
  );
  const rows: string[][] = [];
  try {
    await waitForReady(port, certs.ca);
    rows.push(['started', '', '', '', ...(await memory(child.pid!)).map(mib)]);
    for (const scenario of withLargeSchema ? [largeSchemaScenario, ...scenarios] : scenarios) {
      const body = scenario.body();
      let slowest = 0;
      const statuses = new Map<number, number>();
      for (let round = 0; round < scenario.repeat; round++) {
        const answers = await Promise.all(
          Array.from({ length: scenario.concurrency }, () => post(port, certs.ca, scenario.path, body)),
        );
        for (const answer of answers) {
          if (![200, 413, 503, 0].includes(answer.status))
            throw new Error(`${scenario.name}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
          slowest = Math.max(slowest, answer.ms);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }
      const [rss, peak] = await memory(child.pid!);
      const answered = [...statuses].map(([status, count]) => `${count}x ${status || 'closed'}`).join(', ');
      rows.push([
        scenario.name,
        mib(Buffer.byteLength(body)),
        answered,
        `${Math.round(slowest)} ms`,
        mib(rss),
        mib(peak),
      ]);
      process.stderr.write(`  ... ${scenario.name}: peak ${mib(peak)}\n`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await certs.remove();
  }
  process.stdout.write(`${textTable(['input', 'body', 'answers', 'slowest', 'RSS after', 'peak RSS so far'], rows)}\n`);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** [VmRSS, VmHWM] of a process, in bytes: the resident set now, and its peak since start. */
async function memory(pid: number): Promise<[number, number]> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return [kib('VmRSS'), kib('VmHWM')];
}

function post(
  port: number,
  ca: Buffer,
  path: string,
  body: string,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }),
        );
      },
    );
    // A refusal (413, 503) may close the connection while the body is still being written.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET')
        resolve({ status: 0, text: error.code, ms: performance.now() - started });
      else reject(error);
    });
    req.end(body);
  });
}

async function waitForReady(port: number, ca: Buffer): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await new Promise<boolean>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/readyz', ca, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ready) return;
    if (Date.now() > deadline) throw new Error('crdgate did not become ready within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

await main();
