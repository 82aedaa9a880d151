import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inClusterAccess } from './in-cluster-access.ts';

// The pod's service account as crdgate reads it without client-node; through real TLS in
// test/integration/in-cluster-access.test.ts, and in a pod's mount namespace in test/e2e/workloads-as-kubelet.

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

async function serviceAccount(token = 'token-1\n'): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'crdgate-sa-'));
  await writeFile(join(root, 'token'), token);
  await writeFile(join(root, 'ca.crt'), 'not read until a connection');
  return root;
}

const env = (host: string, port: string) => ({ KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port });

describe('inClusterAccess', () => {
  it('is there only in a pod: a token, and the service variables', async () => {
    const dir = await serviceAccount();
    expect(inClusterAccess({ env: {}, root: dir })).toBeUndefined();
    expect(inClusterAccess({ env: env('10.96.0.1', '443'), root: join(dir, 'none') })).toBeUndefined();
    expect(inClusterAccess({ env: env('10.96.0.1', '443'), root: dir })?.server).toBe('https://10.96.0.1:443');
  });

  it('writes the address as client-go does: an IPv6 host in brackets, the plain-HTTP ports as http', async () => {
    const dir = await serviceAccount();
    expect(inClusterAccess({ env: env('fd00::1', '443'), root: dir })?.server).toBe('https://[fd00::1]:443');
    expect(inClusterAccess({ env: env('10.96.0.1', '8080'), root: dir })?.server).toBe('http://10.96.0.1:8080');
  });

  it('sends the token, trimmed, reads it again after a minute, and keeps one connection pool', async () => {
    const dir = await serviceAccount();
    let now = 1_000_000;
    const access = inClusterAccess({ env: env('10.96.0.1', '443'), root: dir, now: () => now })!;
    const authenticated = async () => {
      const options: RequestOptions = { headers: { accept: 'application/json' } };
      await access.authenticate(options);
      return options;
    };
    const first = await authenticated();
    expect(first.headers).toEqual({ accept: 'application/json', authorization: 'Bearer token-1' });
    expect((first.agent as { keepAlive?: boolean }).keepAlive).toBe(true);
    await writeFile(join(dir, 'token'), 'token-2');
    now += 59_000;
    expect((await authenticated()).headers).toMatchObject({ authorization: 'Bearer token-1' });
    now += 2_000;
    const rotated = await authenticated();
    expect(rotated.headers).toMatchObject({ authorization: 'Bearer token-2' });
    expect(rotated.agent).toBe(first.agent);
  });

  it('names the CA file when the token is there and it is not', async () => {
    const dir = await serviceAccount();
    await rm(join(dir, 'ca.crt'));
    expect(() => inClusterAccess({ env: env('10.96.0.1', '443'), root: dir })).toThrow(
      expect.objectContaining({ name: 'KubeconfigError', message: expect.stringContaining(join(dir, 'ca.crt')) }),
    );
  });
});
