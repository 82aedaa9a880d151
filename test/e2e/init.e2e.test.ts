import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { invariantMessage } from '../../src/scaffold/contract-files.ts';
import type { ProvidedControlPlane } from './provided-context.ts';
import { startCrdgateProcess, type CrdgateProcess } from './support/crdgate-process.ts';
import { eventually } from './support/eventually.ts';
import { kubectl } from './support/kubectl.ts';
import { npm, runCommand } from './support/npm.ts';

const provided = inject('controlPlane');
const controlPlane = 'unavailable' in provided ? undefined : provided;

// A user's first hour: `crdgate init`, the new project's own install and tests, its manifests, and its contract
// served in front of the real API server.
describe.skipIf(!controlPlane)('crdgate init, end to end', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const suffix = randomUUID().slice(0, 8);
  const group = `storage-${suffix}.example.com`;
  const namespace = `crdgate-e2e-init-${suffix}`;
  let workDir: string;
  let project: string;
  let server: CrdgateProcess | undefined;
  const bin = () => join(project, 'node_modules', 'crdgate', 'dist', 'bin.js');
  const crdgate = (...args: string[]) => runCommand(process.execPath, [bin(), ...args], project);

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-init-'));
    project = join(workDir, 'bucket');
    const init = await runCli(workDir, 'init', 'bucket', '--group', group, '--kind', 'Bucket', '--crdgate', `file:${inject('packedCrdgate').tarball}`);
    expect(init.code, init.stderr).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    // Webhooks first, so that nothing is left to call a stopped crdgate; no controller-manager removes the namespace.
    await kubectl(cp, ['delete', 'validatingwebhookconfiguration,mutatingwebhookconfiguration', 'crdgate', '--ignore-not-found']);
    await kubectl(cp, ['delete', 'crd', `buckets.${group}`, '--ignore-not-found']);
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false']);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('makes a project whose `npm ci && npm test` pass at once', async () => {
    const installed = await npm(['ci'], project);
    expect(installed.exitCode, installed.stderr).toBe(0);
    const tested = await runCommand('npm', ['test'], project);
    expect(tested.exitCode, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^ℹ pass 5$/m);
    expect(tested.stdout).toMatch(/^ℹ fail 0$/m);
    // The guide the project's README points at ships with the package.
    expect(await readFile(join(project, 'node_modules', 'crdgate', 'docs', 'contracts.md'), 'utf8')).toMatch(/^# Writing a contract/);
  });

  it('renders a Deployment and a migration Job that run the contract on the project\'s image', async () => {
    const rendered = await runCommand('npm', ['run', '--silent', 'manifests'], project);
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    const objects = parseAllDocuments(rendered.stdout).map((d) => d.toJS());
    const container = (kind: string) => objects.find((o) => o.kind === kind).spec.template.spec.containers[0];
    expect(container('Deployment')).toMatchObject({ image: 'bucket-contract:0.1.0', args: ['serve', '--cert-dir', '/etc/crdgate/certs', '--contract', './src/contract.ts'] });
    expect(container('Job').args).toEqual(['migrate', '--resource', `buckets.${group}`]);
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual([`buckets.${group}`]);
    // The image runs the Deployment's arguments from /app, the project's root: the same command from here
    // (with certificates of its own, and any port) serves the scaffolded contract.
    const args = [...container('Deployment').args].map((arg: string) => (arg === '/etc/crdgate/certs' ? 'certs' : arg));
    server = await startCrdgateProcess(bin(), [...args, '--port', '0', '--host', '127.0.0.1'], project);
  });

  it('admits a valid object through the real API server and refuses an invalid one with the scaffold\'s message', async () => {
    if (!server) throw new Error('crdgate is not serving (the previous test failed)');
    const rendered = await crdgate(
      'manifests', '--contract', './src/contract.ts', '--image', 'bucket-contract:0.1.0',
      '--url', `https://127.0.0.1:${server.port}`, '--ca-bundle', 'certs/ca.crt', '--out', 'manifests',
    );
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
    const applied = await kubectl(cp, ['apply', '--server-side', '-f', join(project, 'manifests', 'base', `20-crd-buckets.${group}.yaml`), '-f', join(project, 'manifests', 'base', '30-webhook-configurations.yaml')]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect((await kubectl(cp, ['wait', '--for=condition=Established', `crd/buckets.${group}`, '--timeout=60s'])).exitCode).toBe(0);

    const example = parseAllDocuments(await readFile(join(project, 'examples', 'bucket.yaml'), 'utf8'))[0]!.toJS();
    const invalidFile = join(workDir, 'invalid-bucket.yaml');
    await writeFile(invalidFile, stringify({ ...example, metadata: { name: 'archive' }, spec: { sizeGi: 10, tier: 'archive', replicas: 3 } }));
    // The API server picks the webhook configurations up from a watch, a moment after they are stored.
    const refused = await eventually('the validating webhook to refuse the invalid Bucket', async () => {
      const attempt = await kubectl(cp, ['create', '--dry-run=server', '-n', namespace, '-f', invalidFile]);
      if (attempt.exitCode !== 0 && attempt.stderr.includes(invariantMessage)) return attempt;
      throw new Error(`kubectl exited ${attempt.exitCode}: ${attempt.stdout}${attempt.stderr}`);
    });
    expect(refused.stderr).toContain(`The Bucket "archive" is invalid: spec.replicas: ${invariantMessage}`);
    expect((await kubectl(cp, ['get', 'buckets', '-n', namespace, '-o', 'name'])).stdout.trim()).toBe('');

    const created = await kubectl(cp, ['apply', '--server-side', '-n', namespace, '-f', join(project, 'examples', 'bucket.yaml')]);
    expect(created.exitCode, created.stderr).toBe(0);
    const stored = JSON.parse((await kubectl(cp, ['get', 'bucket', 'example', '-n', namespace, '-o', 'json'])).stdout);
    // The mutating webhook filled in the defaults.
    expect(stored.spec).toEqual({ sizeGi: 10, replicas: 1, tier: 'standard' });
  });
});
