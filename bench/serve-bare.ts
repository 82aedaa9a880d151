import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serveParent } from './child-channel.ts';

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
  server.keepAliveTimeout = 120_000;
  server.requestTimeout = 30_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serveParent({
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

if (import.meta.main) {
  const certDir = process.argv[2];
  if (!certDir) throw new Error('usage: serve-bare.ts CERT_DIR');
  await serveBare(certDir);
}
