import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneControlPlane } from './provided-context.ts';
import { stringify } from 'yaml';
import type { Contract } from '../../src/contract/contract-definition.ts';
import { startTestEnvironment, type TestEnvironment } from '../../src/testing.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { runCommand } from './support/npm.ts';

// An operator's CRD whose kind is lowercase (postgresql, as Zalando's postgres-operator has it; the fixture is
// crdgate's own, test/fixtures/crds/postgresqls.acid.example.com.yaml), end to end: `crdgate init --from-crd
// --crd-owner external` makes the guard, the user adds the DBA's rules, `crdgate check --contract` decides every
// object of the kind (none skipped), and crdgate's webhook in front of a real kube-apiserver refuses a volume
// shrink with a clear message. The project's `crdgate` is this checkout's source, through a two-line package in its
// node_modules, so that nothing is packed or installed.

const controlPlane = laneControlPlane();
const crdFixture = fileURLToPath(new URL('../fixtures/crds/postgresqls.acid.example.com.yaml', import.meta.url));
const source = (file: string) => fileURLToPath(new URL(`../../src/${file}`, import.meta.url));

/** The DBA's rules, as a user writes them in place of the scaffold's TODO: the cluster's phase is a word. */
const machine = `transitions: {
      name: 'postgresql',
      subject: 'cluster',
      states: ['Creating', 'Running', 'Updating', 'Failed', 'Deleting'],
      initialState: 'Creating',
      steadyState: 'Running',
      deletingState: 'Deleting',
      terminalStates: ['Deleting'],
      humanInterventionStates: ['Failed'],
      overrideAnnotation: 'acid.example.com/override-transitions',
      phasePath: 'status.PostgresClusterStatus',
      phases: { Creating: 'Creating', Running: 'Running', Updating: 'Updating', SyncFailed: 'Failed' },
      changeKinds: {
        'volume.grow': { description: 'growing the volume from {from} to {to}' },
        'volume.shrink': { description: 'shrinking the volume from {from} to {to}', unsupported: 'a volume cannot shrink' },
        'postgres.upgrade': { description: 'upgrading PostgreSQL {from} to {to}' },
        'postgres.major': { description: 'upgrading PostgreSQL {from} to {to}' },
        'postgres.downgrade': { description: 'downgrading PostgreSQL {from} to {to}', unsupported: 'the data directory cannot go back' },
      },
      rules: {
        Creating: { anyChange: true, operatorMoves: ['Running', 'Failed'] },
        Running: { allow: [{ changes: ['volume.grow'] }, { changes: ['postgres.upgrade'], next: 'Updating' }, { changes: ['postgres.major'], next: 'Updating' }], operatorMoves: ['Updating', 'Failed'] },
        Updating: { operatorMoves: ['Running', 'Failed'] },
        Failed: {},
        Deleting: {},
      },
      classifiers: [
        fieldClassifier({
          path: 'volume.size',
          read: readQuantity,
          compare: byDirection({ compare: compareQuantities, increase: 'volume.grow', decrease: 'volume.shrink' }),
        }),
        fieldClassifier({
          path: 'postgresql.version',
          read: (raw) => (typeof raw === 'string' ? parseVersion(raw) : undefined),
          compare: byReleaseStep({ compare: compareVersions, upgrade: 'postgres.upgrade', major: 'postgres.major', downgrade: 'postgres.downgrade' }),
        }),
      ],
    },`;

const postgresql = (name: string, size: string, version = '16', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'acid.example.com/v1',
  kind: 'postgresql',
  metadata: { name, namespace: 'default' },
  spec: { teamId: 'acid', numberOfInstances: 2, postgresql: { version }, volume: { size } },
  ...extra,
});

describe.skipIf('unavailable' in controlPlane)('a lowercase kind (postgresql) guarded from its CRD', () => {
  let workDir: string;
  let project: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-lowercase-'));
    const init = await crdgate(
      workDir,
      'init',
      'pg-guard',
      '--from-crd',
      crdFixture,
      '--crd-owner',
      'external',
      '--crdgate',
      '0.1.0',
      '--skip-install',
    );
    expect(init, init.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(init.stdout).toContain('wrote a postgresql.acid.example.com project');
    project = join(workDir, 'pg-guard');
    // The project's dependency on crdgate, as this checkout's source.
    const shim = join(project, 'node_modules', 'crdgate');
    await mkdir(shim, { recursive: true });
    await writeFile(
      join(shim, 'package.json'),
      JSON.stringify({ name: 'crdgate', type: 'module', exports: { '.': './index.js', './testing': './testing.js' } }),
    );
    await writeFile(join(shim, 'index.js'), `export * from ${JSON.stringify(source('index.ts'))};\n`);
    await writeFile(join(shim, 'testing.js'), `export * from ${JSON.stringify(source('testing.ts'))};\n`);
    // The user's edit: the DBA's rules where the scaffold leaves a TODO.
    const contractFile = join(project, 'src', 'contract.ts');
    const scaffolded = await readFile(contractFile, 'utf8');
    const edited = scaffolded
      .replace(
        "import { defineContract, fromCrd, readCrdFile, type Contract, type Invariant } from 'crdgate';",
        'import { byDirection, byReleaseStep, compareQuantities, compareVersions, defineContract, fieldClassifier, fromCrd, ' +
          "parseVersion, readCrdFile, readQuantity, type Contract, type Invariant } from 'crdgate';",
      )
      .replace(/ {4}\/\/ TODO: transitions:[^\n]*\n[^\n]*\n/, `    ${machine}\n`);
    expect(edited).toContain("phasePath: 'status.PostgresClusterStatus'");
    expect(edited).toContain('import { byDirection,');
    await writeFile(contractFile, edited);
  }, 60_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("names the scaffold's code after the kind, readable and valid: its own tests pass", async () => {
    const contract = await readFile(join(project, 'src', 'contract.ts'), 'utf8');
    expect(contract).toContain('export default function postgresqlContract(): Contract<PostgresqlSpec> {');
    const tests = await runCommand(
      process.execPath,
      ['--test', '--test-reporter=tap', 'src/contract.test.ts'],
      project,
    );
    expect(tests.exitCode, tests.stdout + tests.stderr).toBe(0);
    expect(tests.stdout).toMatch(/# pass [1-9]/);
    expect(tests.stdout).toContain('# fail 0');
  });

  it('decides every postgresql object with crdgate check --contract: a shrink and a downgrade denied, none skipped', async () => {
    await mkdir(join(workDir, 'main'), { recursive: true });
    await mkdir(join(workDir, 'branch'), { recursive: true });
    const running = { status: { PostgresClusterStatus: 'Running' } };
    await writeFile(
      join(workDir, 'main', 'clusters.yaml'),
      [postgresql('orders', '10Gi', '16', running), postgresql('users', '10Gi', '16', running)]
        .map((o) => stringify(o))
        .join('---\n'),
    );
    await writeFile(
      join(workDir, 'branch', 'clusters.yaml'),
      [
        postgresql('orders', '5Gi', '15', running),
        postgresql('users', '20Gi', '16', running),
        postgresql('billing', '1 GB'),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: {} },
      ]
        .map((o) => stringify(o))
        .join('---\n'),
    );
    const result = await crdgate(
      workDir,
      'check',
      '-f',
      'branch',
      '--old',
      'main',
      '--contract',
      join(project, 'src', 'contract.ts'),
      '-o',
      'json',
    );
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(result.stdout) as {
      summary: { skippedKinds: Record<string, number> };
      objects: Array<{ name: string; kind: string; operation: string; code: string; causes: { message: string }[] }>;
    };
    expect(report.objects.map((o) => [o.name, o.kind, o.operation, o.code])).toEqual([
      ['orders', 'postgresql', 'UPDATE', 'CHANGE_FORBIDDEN'],
      ['users', 'postgresql', 'UPDATE', 'ALLOWED'],
      ['billing', 'postgresql', 'CREATE', 'OBJECT_INVALID'],
    ]);
    expect(report.objects[0]!.causes.map((cause) => cause.message)).toEqual([
      expect.stringContaining('shrinking the volume from 10Gi to 5Gi is unsupported: a volume cannot shrink'),
      expect.stringContaining('downgrading PostgreSQL 16 to 15 is unsupported: the data directory cannot go back'),
    ]);
    expect(report.summary.skippedKinds).toEqual({ ConfigMap: 1 });
  });

  describe('in front of a real kube-apiserver', () => {
    let env: TestEnvironment;
    const previousAssets = process.env['KUBEBUILDER_ASSETS'];

    beforeAll(async () => {
      if ('unavailable' in controlPlane) return;
      process.env['KUBEBUILDER_ASSETS'] = controlPlane.assetsDir;
      const module = (await import(join(project, 'src', 'contract.ts'))) as { default: () => Contract };
      env = await startTestEnvironment({ contracts: [module.default()], build: false });
    }, 120_000);

    afterAll(async () => {
      if (previousAssets === undefined) delete process.env['KUBEBUILDER_ASSETS'];
      else process.env['KUBEBUILDER_ASSETS'] = previousAssets;
      await env?.stop();
    });

    /** kubectl patch of the cluster `orders`, named by `resource` (the kind, or its short name). */
    const patch = (resource: string, body: object, ...flags: string[]) =>
      env.kubectl(['patch', resource, 'orders', ...flags, '--type=merge', '-p', JSON.stringify(body)]);

    it('serves the kind by its short name, and refuses a volume shrink of a running cluster, saying why', async () => {
      const created = await env.kubectl(['apply', '-f', '-'], { stdin: JSON.stringify(postgresql('orders', '10Gi')) });
      expect(created, created.stderr).toMatchObject({ exitCode: 0 });
      const status = await patch('pg', { status: { PostgresClusterStatus: 'Running' } }, '--subresource=status');
      expect(status, status.stderr).toMatchObject({ exitCode: 0 });

      const shrink = await patch('postgresql', { spec: { volume: { size: '5Gi' } } });
      expect(shrink.exitCode).not.toBe(0);
      expect(shrink.stderr).toContain(
        'postgresql.acid.example.com "orders" cannot be changed: spec.volume.size: shrinking the volume from 10Gi to 5Gi is unsupported: a volume cannot shrink',
      );
      const grow = await patch('pg', { spec: { volume: { size: '20Gi' } } });
      expect(grow, grow.stderr).toMatchObject({ exitCode: 0 });
    });

    it("says what to fix when the API server's kind for the resource is not the contract's", async () => {
      // The CRD served anew with its kind written otherwise: the webhooks, registered for the resource, stay.
      const deleted = await env.kubectl(['delete', 'crd', 'postgresqls.acid.example.com', '--timeout=60s']);
      expect(deleted, deleted.stderr).toMatchObject({ exitCode: 0 });
      const renamed = (await readFile(crdFixture, 'utf8'))
        .replace('kind: postgresql\n', 'kind: Postgresql\n')
        .replace('listKind: postgresqlList', 'listKind: PostgresqlList')
        .replace('enum: [postgresql]', 'enum: [Postgresql]');
      expect((await env.kubectl(['apply', '-f', '-'], { stdin: renamed })).exitCode).toBe(0);
      const established = await env.kubectl([
        'wait',
        '--for=condition=Established',
        'crd/postgresqls.acid.example.com',
        '--timeout=30s',
      ]);
      expect(established, established.stderr).toMatchObject({ exitCode: 0 });
      const created = await env.kubectl(['apply', '-f', '-'], {
        stdin: JSON.stringify({ ...postgresql('orders', '10Gi'), kind: 'Postgresql' }),
      });
      expect(created.exitCode).not.toBe(0);
      expect(created.stderr).toContain(
        'crdgate has no contract for Postgresql.acid.example.com: the contract for resource postgresqls.acid.example.com ' +
          "declares kind postgresql, the API server sends kind Postgresql: make the contract's kind equal the CRD's spec.names.kind",
      );
    });
  });
});
