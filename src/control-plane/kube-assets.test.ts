import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readControlPlaneVersions } from './go-modules.ts';
import { resolveCelCostEstimator, resolveKubeAssets } from './kube-assets.ts';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crdgate-kube-assets-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

// Stand-ins that only answer --version: resolution must not care what else the binaries do.
async function fakeAssets(dir: string, binaries: string[], apiServerVersion = 'v1.99.7'): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const binary of binaries) {
    const path = join(dir, binary);
    await writeFile(
      path,
      binary === 'kube-apiserver' ? `#!/bin/sh\necho "Kubernetes ${apiServerVersion}"\n` : '#!/bin/sh\n',
    );
    await chmod(path, 0o755);
  }
  return dir;
}

const ALL = ['kube-apiserver', 'etcd', 'kubectl'];
const noGoEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: join(base, 'empty-path'),
  HOME: base,
  ...extra,
});

describe('resolveKubeAssets', () => {
  it('uses a complete KUBEBUILDER_ASSETS folder and asks kube-apiserver for its version', async () => {
    const dir = await fakeAssets(join(base, 'assets'), ALL);
    const relativeDir = relative(process.cwd(), dir);
    const assets = await resolveKubeAssets({ build: false, env: noGoEnv({ KUBEBUILDER_ASSETS: relativeDir }) });
    expect(assets).toEqual({ dir, kubeApiserverVersion: 'v1.99.7' });
  });

  it('falls back to the cache when KUBEBUILDER_ASSETS lacks a binary, saying so', async () => {
    await fakeAssets(join(base, 'assets'), ['kube-apiserver', 'etcd']);
    const lines: string[] = [];
    const assets = await resolveKubeAssets({
      build: false,
      env: noGoEnv({ KUBEBUILDER_ASSETS: join(base, 'assets'), XDG_CACHE_HOME: join(base, 'cache') }),
      log: (line) => lines.push(line),
    });
    expect(lines.join('\n')).toContain('lacks kubectl');
    expect(assets).toMatchObject({ unavailable: expect.stringContaining('not built yet') });
  });

  it('finds built binaries in the per-version cache folder without running anything', async () => {
    const { kubernetes, etcd } = readControlPlaneVersions();
    const cached = join(base, 'cache', 'crdgate', 'kube-bin', `k8s-${kubernetes}_etcd-${etcd}`);
    // kube-apiserver here claims another version: the cache path is trusted, not asked.
    await fakeAssets(cached, ALL, 'v0.0.0-wrong');
    const assets = await resolveKubeAssets({ build: true, env: noGoEnv({ XDG_CACHE_HOME: join(base, 'cache') }) });
    expect(assets).toEqual({ dir: cached, kubeApiserverVersion: kubernetes });
  });

  it('defaults the cache to $HOME/.cache', async () => {
    const { kubernetes, etcd } = readControlPlaneVersions();
    const cached = await fakeAssets(join(base, '.cache', 'crdgate', 'kube-bin', `k8s-${kubernetes}_etcd-${etcd}`), ALL);
    expect(await resolveKubeAssets({ build: false, env: noGoEnv() })).toEqual({
      dir: cached,
      kubeApiserverVersion: kubernetes,
    });
  });

  it('reports missing binaries as unavailable when building is not allowed', async () => {
    const assets = await resolveKubeAssets({ build: false, env: noGoEnv() });
    expect(assets).toMatchObject({
      unavailable: expect.stringMatching(/kube-apiserver, etcd, kubectl not built yet in .*npx crdgate kube-bin/),
    });
  });

  it('reports that Go is missing when it would have to build', async () => {
    const assets = await resolveKubeAssets({ build: true, env: noGoEnv() });
    expect(assets).toMatchObject({ unavailable: expect.stringContaining('Go is not installed') });
    expect(assets).toMatchObject({ unavailable: expect.stringContaining('KUBEBUILDER_ASSETS') });
  });
});

describe('resolveCelCostEstimator', () => {
  it('is looked for in the per-version cache folder, under a name that carries a hash of its sources', async () => {
    const { kubernetes, etcd } = readControlPlaneVersions();
    const cached = join(base, 'cache', 'crdgate', 'kube-bin', `k8s-${kubernetes}_etcd-${etcd}`);
    const env = noGoEnv({ XDG_CACHE_HOME: join(base, 'cache') });
    const missing = await resolveCelCostEstimator({ build: false, env, buildStep: 'the setup builds it' });
    const [, fileName = ''] =
      /(celcost-[0-9a-f]{12}) not built yet in /.exec('unavailable' in missing ? missing.unavailable : '') ?? [];
    expect(missing).toEqual({ unavailable: `${fileName} not built yet in ${cached} (the setup builds it)` });

    // A build from other sources is not taken for this one.
    await fakeAssets(cached, ['celcost-000000000000']);
    expect(await resolveCelCostEstimator({ build: false, env, buildStep: 'the setup builds it' })).toEqual(missing);
    await fakeAssets(cached, [fileName]);
    expect(await resolveCelCostEstimator({ build: true, env })).toEqual({ path: join(cached, fileName) });
  });

  it('never takes it from KUBEBUILDER_ASSETS, which holds only the control plane', async () => {
    const assets = await fakeAssets(join(base, 'assets'), [...ALL, 'celcost']);
    const resolved = await resolveCelCostEstimator({ build: false, env: noGoEnv({ KUBEBUILDER_ASSETS: assets }) });
    expect(resolved).toMatchObject({
      unavailable: expect.stringContaining(join(base, '.cache', 'crdgate', 'kube-bin')),
    });
  });

  it('reports that Go is missing when it would have to build', async () => {
    const resolved = await resolveCelCostEstimator({ build: true, env: noGoEnv() });
    expect(resolved).toMatchObject({
      unavailable: expect.stringMatching(/^Go is not installed .* celcost cannot be built/),
    });
  });
});

describe('readControlPlaneVersions', () => {
  it('reads the pinned releases from the wrapper go.mod files', () => {
    expect(readControlPlaneVersions()).toEqual({
      kubernetes: expect.stringMatching(/^v1\.36\.\d+$/),
      etcd: expect.stringMatching(/^v3\.6\.\d+$/),
    });
  });
});
