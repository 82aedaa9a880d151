import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { ControlPlaneUnavailableError, startTestEnvironment } from './test-environment.ts';

describe('startTestEnvironment without binaries', () => {
  let empty: string;
  const saved = { assets: process.env['KUBEBUILDER_ASSETS'], cache: process.env['XDG_CACHE_HOME'] };

  beforeEach(async () => {
    empty = await mkdtemp(join(tmpdir(), 'crdgate-no-binaries-'));
    process.env['KUBEBUILDER_ASSETS'] = empty;
    process.env['XDG_CACHE_HOME'] = empty;
  });

  afterEach(async () => {
    for (const [name, value] of [
      ['KUBEBUILDER_ASSETS', saved.assets],
      ['XDG_CACHE_HOME', saved.cache],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(empty, { recursive: true, force: true });
  });

  it('throws ControlPlaneUnavailableError naming what is missing and how to get it, so a suite can skip with the reason', async () => {
    const lines: string[] = [];
    const failure = await startTestEnvironment({
      contracts: geoDatabaseContract(),
      build: false,
      log: (line) => lines.push(line),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ControlPlaneUnavailableError);
    expect((failure as Error).message).toMatch(
      /kube-apiserver, etcd, kubectl not built yet in .*\(run: npx crdgate kube-bin\)/,
    );
    expect(lines.join('\n')).toContain(`KUBEBUILDER_ASSETS=${empty} lacks kube-apiserver, etcd, kubectl`);
  });
});
