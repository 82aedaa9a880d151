import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from './kube-config.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-kubeconfig-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const kubeconfig = (user: Record<string, unknown>, currentContext = 'c') => `apiVersion: v1
kind: Config
clusters: [{ name: k, cluster: { server: 'https://127.0.0.1:6443' } }]
users: [{ name: u, user: ${JSON.stringify(user)} }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
current-context: ${currentContext}
`;

async function authorizationOf(file: string): Promise<unknown> {
  const kubeConfig = await loadKubeConfig(file, undefined, dir);
  const options: { headers: Record<string, string> } = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(options);
  return options.headers['Authorization'];
}

describe('loadKubeConfig', () => {
  it("sends the token of kubectl's tokenFile (client-node reads only token-file), relative to the kubeconfig's folder", async () => {
    await writeFile(join(dir, 'sa-token'), 'token-from-file');
    await writeFile(join(dir, 'token-file.yaml'), kubeconfig({ tokenFile: 'sa-token' }));
    expect(await authorizationOf('token-file.yaml')).toBe('Bearer token-from-file');
  });

  it('keeps a plain token as it is', async () => {
    await writeFile(join(dir, 'token.yaml'), kubeconfig({ token: 'plain' }));
    expect(await authorizationOf('token.yaml')).toBe('Bearer plain');
  });

  it('refuses a kubeconfig with no current cluster in one line', async () => {
    await writeFile(join(dir, 'no-context.yaml'), kubeconfig({ token: 'x' }, '""'));
    await expect(loadKubeConfig('no-context.yaml', undefined, dir)).rejects.toThrow(/no current cluster/);
    await expect(loadKubeConfig('no-context.yaml', undefined, dir)).rejects.toMatchObject({
      detail: { problem: 'no-current-cluster' },
    });
  });

  it('says there is no kubeconfig rather than trying http://localhost:8080', async () => {
    const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
    process.env.KUBECONFIG = '';
    process.env.HOME = dir;
    try {
      // Which flag to pass is the command layer's to say (src/commands/kube-options.ts); here, what is missing.
      await expect(loadKubeConfig(undefined, undefined, dir)).rejects.toMatchObject({
        detail: { problem: 'missing' },
        message: expect.stringMatching(/^no kubeconfig: /),
      });
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
