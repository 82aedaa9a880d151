import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCertDir } from '../../src/certs/cert-dir.ts';
import { createCertificateAuthority, issueCertificate } from '../../src/certs/pki.ts';
import { loadFixture, startTestServer, type TestServer } from './support/test-server.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function peerCertificate(port: number, ca: Buffer): Promise<PeerCertificate & { protocol: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const certificate = socket.getPeerCertificate();
      const protocol = socket.getProtocol();
      socket.end();
      resolve({ ...certificate, protocol });
    });
    socket.on('error', reject);
  });
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('TLS', () => {
  it('refuses TLS 1.1 and speaks TLS 1.2+', async () => {
    server = await startTestServer();
    const modern = await peerCertificate(server.port, server.ca);
    expect(['TLSv1.2', 'TLSv1.3']).toContain(modern.protocol);
    await expect(
      new Promise((resolve, reject) => {
        const socket = connect(
          { host: '127.0.0.1', port: server!.port, ca: server!.ca, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' },
          () => resolve(socket),
        );
        socket.on('error', reject);
      }),
    ).rejects.toThrow();
  });

  it('reloads a renewed serving certificate without dropping an open connection', async () => {
    server = await startTestServer({ certPollMs: 200 });
    const before = await peerCertificate(server.port, server.ca);

    // An open keep-alive connection from before the renewal.
    const { Agent } = await import('node:https');
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: server!.port, path: '/healthz', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await get()).toBe(200);

    // Renewal the way a Secret volume does it: new files appear by rename, the CA stays.
    const staging = await mkdtemp(join(tmpdir(), 'crdgate-renew-'));
    await writeFile(join(staging, 'ca.crt'), await readFile(join(server.certDir, 'ca.crt')));
    await writeFile(join(staging, 'ca.key'), await readFile(join(server.certDir, 'ca.key')));
    await writeCertDir(staging, { dnsNames: ['localhost', 'renewed.example'], ipAddresses: ['127.0.0.1'], days: 2 });
    await rename(join(staging, 'tls.key'), join(server.certDir, 'tls.key'));
    await rename(join(staging, 'tls.crt'), join(server.certDir, 'tls.crt'));
    await rm(staging, { recursive: true });

    await until(
      async () => (await peerCertificate(server!.port, server!.ca)).serialNumber !== before.serialNumber,
      'the new certificate',
    );
    const after = await peerCertificate(server.port, server.ca);
    expect(after.subjectaltname).toContain('renewed.example');
    expect(await get()).toBe(200);
    agent.destroy();
  });

  it('keeps serving the current certificate when the files on disk are broken', async () => {
    server = await startTestServer({ certPollMs: 100 });
    const before = await peerCertificate(server.port, server.ca);
    await writeFile(join(server.certDir, 'tls.crt'), 'not a certificate');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await peerCertificate(server.port, server.ca)).serialNumber).toBe(before.serialNumber);
    expect(server.logLines().some((l) => String(l.msg).includes('not reloaded'))).toBe(true);
  });
});

describe('mTLS', () => {
  it('requires a client certificate from the client CA on webhook endpoints, not on probes', async () => {
    const clientCa = createCertificateAuthority({ commonName: 'apiserver-client-ca', days: 1 });
    const client = issueCertificate(clientCa, { commonName: 'kube-apiserver', days: 1, usage: 'client' });
    const stranger = issueCertificate(createCertificateAuthority({ commonName: 'other', days: 1 }), {
      commonName: 'x',
      days: 1,
      usage: 'client',
    });
    const dir = await mkdtemp(join(tmpdir(), 'crdgate-mtls-'));
    await writeFile(join(dir, 'client-ca.crt'), clientCa.certPem);
    server = await startTestServer({ clientCaFile: join(dir, 'client-ca.crt') });
    const review = await loadFixture('create-geodatabase.json');

    const withClient = await server.post('/validate', review, { tls: { cert: client.certPem, key: client.keyPem } });
    expect(withClient.status).toBe(200);
    expect(withClient.json().response.allowed).toBe(true);

    expect((await server.post('/validate', review)).status).toBe(401);
    expect(
      (await server.post('/validate', review, { tls: { cert: stranger.certPem, key: stranger.keyPem } })).status,
    ).toBe(401);
    expect((await server.get('/readyz')).status).toBe(200);
    expect(new X509Certificate(client.certPem).issuer).toContain('apiserver-client-ca');
    await rm(dir, { recursive: true });
  });

  it('leaves /convert open by default (kube-apiserver presents no certificate there), and guards it when named', async () => {
    const clientCa = createCertificateAuthority({ commonName: 'apiserver-client-ca', days: 1 });
    const client = issueCertificate(clientCa, { commonName: 'kube-apiserver', days: 1, usage: 'client' });
    const dir = await mkdtemp(join(tmpdir(), 'crdgate-mtls-'));
    await writeFile(join(dir, 'client-ca.crt'), clientCa.certPem);
    const conversion = JSON.parse(
      await readFile(new URL('../fixtures/conversion/to-v1-mixed.json', import.meta.url), 'utf8'),
    );
    const review = await loadFixture('create-geodatabase.json');

    server = await startTestServer({ clientCaFile: join(dir, 'client-ca.crt') });
    expect((await server.post('/convert', conversion)).json().response.result.status).toBe('Success');
    expect((await server.post('/mutate', review)).status).toBe(401);
    await server.stop();

    server = await startTestServer({ clientCaFile: join(dir, 'client-ca.crt'), clientCaEndpoints: ['convert'] });
    expect((await server.post('/convert', conversion)).status).toBe(401);
    expect(
      (await server.post('/convert', conversion, { tls: { cert: client.certPem, key: client.keyPem } })).status,
    ).toBe(200);
    expect((await server.post('/validate', review)).status).toBe(200);
    await rm(dir, { recursive: true });
  });
});

describe('shutdown', () => {
  it('fails readiness during the drain delay, finishes in-flight work, then stops accepting', async () => {
    server = await startTestServer({ drainDelayMs: 600 });
    const review = await loadFixture('create-geodatabase.json');
    const stopping = server.running.shutdown();
    const readyz = await server.get('/readyz');
    expect(readyz.status).toBe(503);
    expect(readyz.text).toBe('not ready: shutting down');
    // Still serving reviews while endpoints drain away.
    expect((await server.post('/validate', review)).json().response.allowed).toBe(true);
    await stopping;
    await expect(server.get('/healthz')).rejects.toThrow();
  });
});

describe('requests handed to express', () => {
  it('arrive already in the app’s express prototypes, so express re-parents nothing per request', async () => {
    server = await startTestServer();
    const bornInExpress: boolean[] = [];
    // Ahead of express's own listener: what node made, before app.handle touches it. express's request prototype
    // is the one that carries `app`.
    server.running.server.prependListener('request', (req) =>
      bornInExpress.push(Object.hasOwn(Object.getPrototypeOf(req), 'app')),
    );
    const review = await loadFixture('create-geodatabase.json');
    expect((await server.post('/validate', review)).json().response.allowed).toBe(true);
    expect(bornInExpress).toEqual([true]);
  });
});
