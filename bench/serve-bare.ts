import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { serveOnLoopback } from './serve-on-loopback.ts';

// Child process: the baseline. The least any Node admission webhook must do: TLS, HTTP/1.1, read the body, parse
// the review, answer. Same certificate, TLS settings and keep-alive timeout as crdgate's server (src/server/serve.ts).

const constantAnswer = Buffer.from(
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'bench', allowed: true } }),
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
 * where spinning until a deadline would absorb the stall. Its speed is calibrated once: the fastest of a few timed
 * runs, the rate when nothing else had the core.
 */
function createBusyWork(): (micros: number) => void {
  let sink = 1;
  function work(iterations: number): void {
    let x = sink;
    for (let i = 0; i < iterations; i++) x = (Math.imul(x, 1103515245) + 12345) | 0;
    sink = x;
  }
  const calibrationIterations = 2_000_000;
  let iterationsPerMicro = 0;
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    work(calibrationIterations);
    iterationsPerMicro = Math.max(iterationsPerMicro, calibrationIterations / ((performance.now() - started) * 1000));
  }
  return function busyFor(micros) {
    if (micros > 0) work(Math.round(micros * iterationsPerMicro));
  };
}

if (import.meta.main) {
  const certDir = process.argv[2];
  if (!certDir) throw new Error('usage: serve-bare.ts CERT_DIR');
  await serveBare(certDir);
}
