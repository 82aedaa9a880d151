import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServerAccessFromFlags } from './kube-options.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-kube-options-'));
  await writeFile(
    join(dir, 'one-context.yaml'),
    `apiVersion: v1
kind: Config
clusters: [{ name: k, cluster: { server: 'https://127.0.0.1:6443' } }]
users: [{ name: u, user: { token: x } }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
current-context: c
`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// The loader in src/kube/ knows no flags; the command layer says which flag fixes what, under a catalog code.
describe('apiServerAccessFromFlags', () => {
  it('loads the --kubeconfig file, switched to --context', async () => {
    const kubeConfig = await apiServerAccessFromFlags({ kubeconfig: 'one-context.yaml', context: 'c' }, dir);
    expect('getCurrentCluster' in kubeConfig && kubeConfig.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
  });

  it('names the flag for each problem, with its code', async () => {
    await expect(
      apiServerAccessFromFlags({ kubeconfig: 'one-context.yaml', context: 'other' }, dir),
    ).rejects.toMatchObject({
      code: 'KUBE_CONTEXT_UNKNOWN',
      exitStatus: 2,
      message: '--context other: no such context in the kubeconfig (contexts: c)',
    });
    await expect(apiServerAccessFromFlags({ kubeconfig: 'no-such-file.yaml' }, dir)).rejects.toMatchObject({
      code: 'KUBECONFIG_INVALID',
      message: expect.stringMatching(/^cannot load the kubeconfig no-such-file\.yaml: /),
    });
  });

  it('says how to give a kubeconfig when there is none', async () => {
    const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
    process.env.KUBECONFIG = '';
    process.env.HOME = dir;
    try {
      await expect(apiServerAccessFromFlags({}, dir)).rejects.toMatchObject({
        code: 'KUBECONFIG_MISSING',
        message: expect.stringMatching(/^no kubeconfig: pass --kubeconfig FILE/),
      });
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
