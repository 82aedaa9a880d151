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
  const server = createServer({ cert, key, minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': constantAnswer.length });
      res.end(constantAnswer);
    });
  });
  await serveOnLoopback(server);
}

if (import.meta.main) {
  const certDir = process.argv[2];
  if (!certDir) throw new Error('usage: serve-bare.ts CERT_DIR');
  await serveBare(certDir);
}
