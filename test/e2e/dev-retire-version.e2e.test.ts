import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { CacheClusterOptions } from '../../src/admission/cache-cluster.fixture.ts';
import { laneControlPlane } from './provided-context.ts';
import { cacheClusterModule } from './support/cache-cluster-module.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { startDev, type DevProcess } from './support/dev-process.ts';
import { runCommand, type CommandResult } from './support/npm.ts';

// The retirement of v1alpha1 in `crdgate dev`, as a user edits the CacheCluster contract of issue 56: stored in
// v1alpha1, then in v1, then v1alpha1 taken out. The API server refuses that CRD while objects are stored in
// v1alpha1; crdgate dev says so in the API server's words and names the migration to run against its own API
// server; once it has run, the same contract saved again reaches the CRD, v1 alone and no conversion webhook.

const controlPlane = laneControlPlane();
const group = 'devretire.cache.example.com';
const resource = `cacheclusters.${group}`;

describe.skipIf('unavailable' in controlPlane)('crdgate dev retiring a version objects were stored in', () => {
  let project = '';
  // kubectl's input is written outside the watched folder, or every kubectl call would reload the contract.
  let scratch = '';
  let dev: DevProcess;
  let kubectl: (args: string[], object?: object) => Promise<CommandResult>;
  const edit = (options: CacheClusterOptions) =>
    writeFile(join(project, 'contract.ts'), cacheClusterModule({ group, ...options }));

  beforeAll(async () => {
    if ('unavailable' in controlPlane) return;
    project = await mkdtemp(join(tmpdir(), 'crdgate-dev-retire-'));
    scratch = await mkdtemp(join(tmpdir(), 'crdgate-dev-retire-input-'));
    await edit({ storage: 'v1alpha1' });
    dev = startDev(project, controlPlane.assetsDir, './contract.ts');
    const [, kubeconfig] = await dev.waitFor(/export KUBECONFIG=(\S+)/, 120_000);
    const [, path] = await dev.waitFor(/export PATH="([^":]+):\$PATH"/);
    kubectl = async (args, object) => {
      const file = join(scratch, `input-${Date.now()}.yaml`);
      if (object !== undefined) await writeFile(file, stringify(object));
      return runCommand(
        join(path!, 'kubectl'),
        [`--kubeconfig=${kubeconfig}`, ...args, ...(object !== undefined ? ['-f', file] : [])],
        project,
        60_000,
      );
    };
  }, 180_000);

  afterAll(async () => {
    if (dev && dev.child.exitCode === null) dev.child.kill('SIGTERM');
    await dev?.exited;
    for (const dir of [project, scratch]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cacheCluster = (version: string, name: string, spec: object) => ({
    apiVersion: `${group}/${version}`,
    kind: 'CacheCluster',
    metadata: { name, namespace: 'default' },
    spec,
  });

  it('takes the retirement once crdgate migrate, which it names, has moved the objects out of v1alpha1', async () => {
    const old = await kubectl(['apply', '--server-side'], cacheCluster('v1alpha1', 'old', { memoryMB: 512 }));
    expect(old.exitCode, old.stderr).toBe(0);
    await edit({});
    await dev.waitFor(/reloaded: generation 2 serves/);
    const created = await kubectl(['apply', '--server-side'], cacheCluster('v1', 'new', { memory: '1Gi' }));
    expect(created.exitCode, created.stderr).toBe(0);

    await edit({ v1alpha1: 'retired' });
    const [refusal] = await dev.waitFor(/the edit did not load, so generation 2 keeps serving:\n.*\n.*/);
    expect(refusal).toContain(
      `CustomResourceDefinition.apiextensions.k8s.io "${resource}" is invalid: status.storedVersions[0]: Invalid value: "v1alpha1"`,
    );
    expect(refusal).not.toContain('HTTP-Code');
    const [, migrate] = /run `crdgate (migrate [^`]+)`/.exec(refusal) ?? [];
    expect(migrate).toMatch(new RegExp(`^migrate --resource ${resource.replaceAll('.', '\\.')} --kubeconfig \\S+$`));

    const migrated = await crdgate(project, ...migrate!.split(' '));
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('storedVersions    [v1alpha1, v1] -> [v1]');

    await edit({ v1alpha1: 'retired' });
    await dev.waitFor(/reloaded: generation 4 serves/);
    const crd = await kubectl(['get', 'crd', resource, '-o', 'jsonpath={.spec.versions[*].name} {.spec.conversion}']);
    expect(crd.stdout).toBe('v1 {"strategy":"None"}');
    const listed = await kubectl(['get', resource, '-o', 'jsonpath={.items[*].spec.memory}']);
    expect(listed.stdout).toBe('1Gi 512Mi');
  }, 120_000);
});
