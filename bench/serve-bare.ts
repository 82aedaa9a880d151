import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { serveOnLoopback } from './serve-on-loopback.ts';

// Child process: the baseline. The least any Node admission webhook must do: TLS, HTTP/1.1, read the body, parse
// the review, answer. Same certificate, TLS settings and keep-alive timeout as crdgate's server (src/server/serve.ts).

const constantAnswer = Buffer.from(
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'bench', allowed: true },
  }),
);

async function serveBare(certDir: string): Promise<void> {
  const [cert, key] = await Promise.all([readFile(join(certDir, 'tls.crt')), readFile(join(certDir, 'tls.key'))]);
  const busyFor = createBusyWork();
  const server = createServer({ cert, key, minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      busyFor(busyMicros(req.url));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': constantAnswer.length });
      res.end(constantAnswer);
    });
  });
  await serveOnLoopback(server);
}

/**
 * `?busy-us=N` on the path (busyBarePath): N µs of work per request, after the parse. The latency phase's control: a
 * bare server made exactly as busy per request as crdgate, which tells a tail that comes from CPU per request (a
 * busier server drains the queue a stall leaves more slowly) from one crdgate adds of its own (GC of its heap, its
 * asynchronous steps).
 */
export function busyBarePath(micros: number): string {
  return `/validate?busy-us=${micros}`;
}

function busyMicros(url: string | undefined): number {
  // The baseline's own requests carry no query: they pay an includes(), not a regular expression.
  if (url === undefined || !url.includes('?')) return 0;
  const match = /[?&]busy-us=(\d+(?:\.\d+)?)(?:&|$)/.exec(url);
  return match ? Number(match[1]) : 0;
}

/**
 * Work, not a wait for the clock: when the machine stalls the process, the work is delayed as crdgate's own would be,
 * where spinning until a deadline would absorb the stall. And work of the kind a webhook does: JSON parsed into fresh
 * objects, then every value read back, so it allocates, collects and misses caches as crdgate's decision does. (A
 * loop in registers, which this was first, keeps its speed when other tenants of the VM's host contend for the
 * caches, and crdgate's work does not.) Its speed is calibrated once: the fastest of a few timed runs, the rate when
 * nothing else had the core.
 */
function createBusyWork(): (micros: number) => void {
  const document = JSON.stringify(workDocument);
  let sink = 0;
  function work(parses: number): void {
    for (let i = 0; i < parses; i++) sink += countValues(JSON.parse(document));
  }
  const calibrationParses = 20_000;
  let parsesPerMicro = 0;
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    work(calibrationParses);
    parsesPerMicro = Math.max(parsesPerMicro, calibrationParses / ((performance.now() - started) * 1000));
  }
  return function busyFor(micros) {
    if (micros > 0) work(Math.round(micros * parsesPerMicro));
    // Read, so the work cannot be optimized away.
    if (sink < 0) throw new Error('unreachable');
  };
}

function countValues(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  let count = 1;
  for (const inner of Object.values(value)) count += countValues(inner);
  return count;
}

// A small custom resource: one parse takes a µs or two, a fine enough grain for budgets of a few µs.
const workDocument = {
  apiVersion: 'example.dev/v1',
  kind: 'Database',
  metadata: { name: 'orders', namespace: 'shop', labels: { app: 'orders', tier: 'data' }, generation: 3 },
  spec: {
    version: '16.4',
    replicas: 3,
    storage: { size: '100Gi', className: 'ssd' },
    extensions: ['postgis', 'pg_trgm'],
    cache: { enabled: true, memory: '2Gi', evictionPolicy: 'allkeys-lru' },
  },
};

if (import.meta.main) {
  const certDir = process.argv[2];
  if (!certDir) throw new Error('usage: serve-bare.ts CERT_DIR');
  await serveBare(certDir);
}
