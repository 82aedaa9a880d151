import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCertDir } from '../../src/certs/cert-dir.ts';
import { inClusterAccess } from '../../src/kube/in-cluster-access.ts';
import { createKubeApi, KubeTransportError } from '../../src/kube/kube-api.ts';

// A pod's service account against a real HTTPS server: the API server's certificate verified with the CA the
// kubelet mounts beside the token, the token sent as the bearer, over one kept-alive connection.
describe('the API client in a pod, without a kubeconfig', () => {
  let work: string;
  let server: Server;
  let port: number;
  const seen: Array<{ authorization: string | undefined; socket: unknown }> = [];

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'crdgate-in-cluster-'));
    await writeCertDir(join(work, 'api-server'), { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 1 });
    server = createServer(
      {
        key: await readFile(join(work, 'api-server', 'tls.key')),
        cert: await readFile(join(work, 'api-server', 'tls.crt')),
      },
      (request, response) => {
        seen.push({ authorization: request.headers.authorization, socket: request.socket });
        response.setHeader('content-type', 'application/json');
        response.end('{"kind":"APIVersions","versions":["v1"]}');
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await rm(work, { recursive: true, force: true });
  });

  /** A service account folder as the kubelet mounts it: the token, and the CA of `caFrom`'s certificate folder. */
  async function serviceAccount(name: string, caFrom: string): Promise<string> {
    await writeCertDir(join(work, caFrom), { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 1 });
    const root = join(work, name);
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'token'), 'the-token');
    await copyFile(join(work, caFrom, 'ca.crt'), join(root, 'ca.crt'));
    return root;
  }

  const env = () => ({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(port) });

  it('verifies the API server with the mounted CA and sends the token, on one connection', async () => {
    const root = await serviceAccount('pod', 'api-server');
    const api = createKubeApi(inClusterAccess({ env: env(), root })!, { timeoutMs: 5_000 });
    expect(api.server).toBe(`https://127.0.0.1:${port}`);
    for (let i = 0; i < 3; i += 1)
      expect((await api.request('GET', '/api')).body).toEqual({ kind: 'APIVersions', versions: ['v1'] });
    expect(seen.map((request) => request.authorization)).toEqual(Array(3).fill('Bearer the-token'));
    expect(new Set(seen.map((request) => request.socket)).size).toBe(1);
  });

  it('refuses an API server whose certificate another CA signed', async () => {
    const root = await serviceAccount('elsewhere', 'other-ca');
    const api = createKubeApi(inClusterAccess({ env: env(), root })!, { timeoutMs: 5_000 });
    await expect(api.request('GET', '/api')).rejects.toBeInstanceOf(KubeTransportError);
  });
});
