import { randomUUID } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { eventually } from '../../src/local-loop/eventually.ts';
import { builtHelm, builtOlmValidator } from '../tools/suite-tools.ts';
import { validateOlmBundle } from '../../src/control-plane/olm-validator.ts';
import { requireE2eVariable } from '../../src/scaffold/e2e-test-source.ts';
import { guideExamples } from '../repo/guide-examples.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { buildImage } from './support/container-image.ts';
import { startCrdgateProcess } from './support/crdgate-process.ts';
import { helm, yamlObjects } from './support/helm.ts';
import { startContainer } from './support/kubelet.ts';
import { npm, runCommand } from './support/npm.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// A CRD of crdgate's own in controller-gen's shape, for `init --from-crd`: the kind, group and versions are its own.
const cachePoolCrd = fileURLToPath(new URL('../fixtures/crds/cachepools.cache.example.com.yaml', import.meta.url));
const localLoopGuide = new URL('../../docs/local-loop.md', import.meta.url);
// An imagined operator's CRDs, as its chart installs them, for `init --from-crd --crd-owner external`.
const operatorCrds = fileURLToPath(new URL('../fixtures/crds/dbops.example.com-operator.yaml', import.meta.url));

interface Shape {
  shape: string;
  kind: string;
  plural: string;
  flags: string[];
  crdGroup?: string;
  operators?: true;
}

const shapes: Shape[] = [
  { shape: 'two versions', kind: 'Queue', plural: 'queues', flags: ['--versions', 'v1beta1,v1'] },
  { shape: 'one cluster-scoped version', kind: 'Bucket', plural: 'buckets', flags: ['--scope', 'Cluster'] },
  {
    shape: 'a CRD it is given (--from-crd)',
    kind: 'CachePool',
    plural: 'cachepools',
    flags: ['--from-crd', cachePoolCrd],
    crdGroup: 'cache.example.com',
  },
  {
    shape: "an operator's CRD (--from-crd --crd-owner external)",
    kind: 'DbCluster',
    plural: 'dbclusters',
    flags: ['--from-crd', operatorCrds, '--crd-name', 'dbclusters.dbops.example.com', '--crd-owner', 'external'],
    crdGroup: 'dbops.example.com',
    operators: true,
  },
];
const groupOf = new Map(shapes.map((s) => [s, s.crdGroup ?? `scaffold-${randomUUID().slice(0, 8)}.example.com`]));

let workDir: string;
const projectOf = (shape: Shape): string => join(workDir, shape.kind.toLowerCase());

// crdgate as a user has it today: installed from the tarball `npm pack` made, in a folder of its own, and `crdgate
// init` run from that install for every shape at once. The install then goes, before any project is tested, so
// nothing of a project can lean on it.
beforeAll(async () => {
  if (!controlPlane) return;
  workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-init-'));
  const installed = join(workDir, 'installed');
  await mkdir(installed);
  await writeFile(join(installed, 'package.json'), '{ "private": true }\n');
  const install = await npm(['install', inject('packedCrdgate').tarball], installed);
  expect(install.exitCode, install.stderr).toBe(0);
  await Promise.all(
    shapes.map(async (shape) => {
      const names = shape.crdGroup === undefined ? ['--group', groupOf.get(shape)!, '--kind', shape.kind] : [];
      const init = await runCommand(
        process.execPath,
        [
          join(installed, 'node_modules', 'crdgate', 'dist', 'bin.js'),
          'init',
          projectOf(shape),
          ...names,
          ...shape.flags,
        ],
        workDir,
      );
      expect(init.exitCode, init.stdout + init.stderr).toBe(0);
    }),
  );
  await rm(installed, { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

// A user's first hour, for three shapes of kind: crdgate installed from its packed tarball (as it is got until it is
// published), `crdgate init` run from that install, then the new project's own install and tests (its end-to-end
// test through a real kube-apiserver among them), its image's install step and its manifests.
describe.skipIf(!controlPlane).each<Shape>(shapes)('crdgate init for $shape, end to end', (shape) => {
  const { kind, plural, crdGroup, operators, flags } = shape;
  const group = groupOf.get(shape)!;
  let project: string;
  const bin = () => join(project, 'node_modules', 'crdgate', 'dist', 'bin.js');
  /** A folder of this shape's own beside its project. */
  const scratch = (name: string) => join(workDir, `${kind.toLowerCase()}-${name}`);

  beforeAll(() => {
    project = projectOf(shape);
  });

  it("depends on crdgate packed into its vendor/ folder, which the image's install step takes from there", async () => {
    const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8'));
    const tarball = String(manifest.dependencies.crdgate).replace(/^file:/, '');
    expect(tarball).toMatch(/^vendor\/crdgate-[^/]+\.tgz$/);
    const lock = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8'));
    expect(lock.packages['node_modules/crdgate'].resolved).toBe(`file:${tarball}`);

    // The Dockerfile's steps up to its install, in a folder that holds only what those steps copy: the image's
    // build sees nothing else of this machine, so a file the Dockerfile forgets to copy fails here.
    const dockerfile = (await readFile(join(project, 'Dockerfile'), 'utf8')).split('\n');
    const install = dockerfile.findIndex((line) => /^RUN npm ci\b/.test(line));
    const buildDir = scratch('image-build');
    await mkdir(buildDir);
    for (const line of dockerfile.slice(0, install).filter((text) => text.startsWith('COPY '))) {
      const [, ...sources] = line.split(/\s+/).slice(0, -1);
      for (const source of sources) await cp(join(project, source), join(buildDir, source), { recursive: true });
    }
    const [, ...installArgs] = dockerfile[install]!.replace(/^RUN /, '').split(/\s+/);
    const built = await runCommand('npm', [...installArgs, '--prefer-offline'], buildDir);
    expect(built.exitCode, built.stderr).toBe(0);
    const installedVersion = JSON.parse(
      await readFile(join(buildDir, 'node_modules', 'crdgate', 'package.json'), 'utf8'),
    ).version;
    expect(tarball).toBe(`vendor/crdgate-${installedVersion}.tgz`);
  });

  it('makes a project whose `npm ci && npm test` pass at once, its end-to-end test running', async () => {
    const installed = await npm(['ci'], project);
    expect(installed.exitCode, installed.stderr).toBe(0);
    // docs/local-loop.md's startTestEnvironment example is written for this shape: typechecked by npm test, run below.
    const environmentCheck =
      kind === 'Queue'
        ? (await guideExamples(localLoopGuide)).find((e) => e.file === 'src/environment.check.ts')
        : undefined;
    if (kind === 'Queue') expect(environmentCheck).toBeDefined();
    if (environmentCheck) await writeFile(join(project, environmentCheck.file), environmentCheck.code);
    // As in CI: the end-to-end test may not skip, and takes kube-apiserver, etcd and kubectl from this run's folder.
    const tested = await runCommand('npm', ['test'], project, 600_000, {
      [requireE2eVariable]: '1',
      KUBEBUILDER_ASSETS: (controlPlane as ProvidedControlPlane).assetsDir,
    });
    expect(tested.exitCode, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^ℹ pass [1-9]\d*$/m);
    expect(tested.stdout).toMatch(/^ℹ fail 0$/m);
    expect(tested.stdout).toMatch(/^ℹ skipped 0$/m);
    if (environmentCheck) {
      const ran = await runCommand(process.execPath, [environmentCheck.file], project, 300_000, {
        KUBEBUILDER_ASSETS: (controlPlane as ProvidedControlPlane).assetsDir,
      });
      expect(ran.exitCode, ran.stdout + ran.stderr).toBe(0);
    }
    // The guides the project's README points at ship with the package.
    expect(await readFile(join(project, 'node_modules', 'crdgate', 'docs', 'contracts.md'), 'utf8')).toMatch(
      /^# Writing a contract/,
    );
    if (operators)
      expect(
        await readFile(join(project, 'node_modules', 'crdgate', 'docs', 'guarding-an-operator.md'), 'utf8'),
      ).toMatch(/^# Guarding an operator's CRD/);
    // `npm run fsa` (docs/own-contracts.md): the machine drawn, or, made from a CRD, that none is written yet.
    const drawn = await runCommand('npm', ['run', '--silent', 'fsa'], project);
    if (crdGroup === undefined)
      expect({ code: drawn.exitCode, stdout: drawn.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(/^stateDiagram-v2$/m),
      });
    else
      expect({ code: drawn.exitCode, stderr: drawn.stderr }).toEqual({
        code: 2,
        stderr: expect.stringMatching(/^crdgate fsa: no contract has an FSA$/m),
      });
    // `npm run check -- -f examples/KIND.yaml --defaulted yaml` (docs/own-contracts.md, the project's README): the
    // example object allowed, and printed with its defaults.
    const example = `examples/${kind.toLowerCase()}.yaml`;
    const checked = await runCommand(
      'npm',
      ['run', '--silent', 'check', '--', '-f', example, '--defaulted', 'yaml'],
      project,
    );
    expect({ code: checked.exitCode, stderr: checked.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/: allowed$/m),
    });
    expect(parse(checked.stdout)).toMatchObject({ kind, metadata: { name: 'example' } });
    // `npm run convert -- -f examples/KIND.yaml --to GROUP/VERSION` (the project's README), where it has versions to
    // convert to: the example shown in the other one.
    const other = /--versions (\S+)/.exec(flags.join(' '))?.[1]?.split(',')[0];
    if (other !== undefined) {
      const apiVersion = `${group}/${other}`;
      const converted = await runCommand(
        'npm',
        ['run', '--silent', 'convert', '--', '-f', example, '--to', apiVersion],
        project,
      );
      expect({ code: converted.exitCode, stderr: converted.stderr }).toEqual({ code: 0, stderr: '' });
      expect(parse(converted.stdout)).toMatchObject({ apiVersion, kind, metadata: { name: 'example' } });
    }
  }, 660_000);

  it(`renders ${operators ? 'a Deployment that runs' : 'a Deployment and a migration Job that run'} the contract on the project's image, and the Deployment's command serves it`, async () => {
    const rendered = await runCommand('npm', ['run', '--silent', 'manifests'], project);
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    const objects = parseAllDocuments(rendered.stdout).map((d) => d.toJS());
    const container = (of: string) => objects.find((o) => o.kind === of).spec.template.spec.containers[0];
    const image = `${kind.toLowerCase()}-contract:0.1.0`;
    expect(container('Deployment')).toMatchObject({
      image,
      args: ['serve', '--cert-dir', '/etc/crdgate/certs', '--contract', './src/contract.ts'],
    });
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name);
    if (operators) {
      // The operator's CRD, its conversion and migration stay the operator's: only crdgate's webhooks are rendered.
      expect({ crds, jobs: objects.filter((o) => o.kind === 'Job') }).toEqual({ crds: [], jobs: [] });
      expect(
        objects
          .filter((o) => o.kind === 'ValidatingWebhookConfiguration')
          .flatMap((o) => o.webhooks.map((w: any) => w.rules[0].resources[0])),
      ).toContain(plural);
    } else {
      expect(container('Job').args).toEqual(['migrate', '--resource', `${plural}.${group}`]);
      expect(crds).toEqual([`${plural}.${group}`]);
    }
    // `npm run chart`: the same install as a Helm chart, which the real helm lints and renders with the same container.
    const charted = await runCommand('npm', ['run', '--silent', 'chart'], project);
    expect(charted.exitCode, charted.stderr).toBe(0);
    const helmPath = await builtHelm();
    const helmHome = scratch('helm-home');
    const linted = await helm(helmPath, helmHome, undefined, ['lint', '--strict', join(project, 'chart')]);
    expect(linted.exitCode, linted.stdout + linted.stderr).toBe(0);
    const templated = await helm(helmPath, helmHome, undefined, [
      'template',
      'crdgate',
      join(project, 'chart'),
      '--set',
      'certificates.mode=secret',
    ]);
    expect(templated.exitCode, templated.stderr).toBe(0);
    expect(yamlObjects(templated.stdout).find((object) => object.kind === 'Deployment')).toMatchObject({
      spec: { template: { spec: { containers: [container('Deployment')] } } },
    });
    // The image runs the Deployment's arguments from /app, the project's root: the same command from here (with
    // certificates of its own, and any port) serves the scaffolded contract.
    const args = [...container('Deployment').args].map((arg: string) => (arg === '/etc/crdgate/certs' ? 'certs' : arg));
    // It resolves once crdgate says it is serving, on the port it names.
    const server = await startCrdgateProcess(bin(), [...args, '--port', '0', '--host', '127.0.0.1'], project);
    expect(server.port).toBeGreaterThan(0);
    await server.stop();
  });

  it("renders, with `npm run bundle`, an OLM bundle that operator-framework/api's validators find no error in", async () => {
    const bundled = await runCommand('npm', ['run', '--silent', 'bundle'], project);
    expect(bundled.exitCode, bundled.stderr).toBe(0);
    const report = await validateOlmBundle(await builtOlmValidator(), join(project, 'bundle'));
    expect(report.errors).toEqual([]);
    // What stays is the author's to give (docs/deploying.md, Installing through OLM): an icon, and for a guard of an
    // operator's kind, examples (OLM takes them only of the kinds a bundle's CRDs define, and it defines none).
    expect(report.warnings.map((warning) => warning.detail).sort()).toEqual([
      expect.stringMatching(/csv\.Spec\.Icon not specified/),
      ...(operators ? [expect.stringMatching(/example annotations not found/)] : []),
    ]);
  });

  // An operator's guard renders no Job; its image is built by the same Dockerfile as the --from-crd project's.
  if (!operators)
    it("starts the project's image as the kubelet would: the Deployment ready on its probes, the Job at its usage error", async () => {
      // The image as `docker build .` makes it from the project's Dockerfile, on the Node it names.
      const image = await buildImage(join(project, 'Dockerfile'), project, dirname(process.execPath));
      try {
        expect(image.config.nodeVersion).toBe(process.versions.node);
        const rendered = await runCommand('npm', ['run', '--silent', 'manifests'], project);
        expect(rendered.exitCode, rendered.stderr).toBe(0);
        const objects = parseAllDocuments(rendered.stdout).map((d) => d.toJS());
        const pod = (of: string) => objects.find((o) => o.kind === of).spec.template.spec;
        const certDir = scratch('serving-cert');
        await chmod(workDir, 0o755);
        const certs = await runCommand(
          process.execPath,
          [
            join(image.workDir, 'node_modules', 'crdgate', 'dist', 'bin.js'),
            'certs',
            '--out',
            certDir,
            '--ip',
            '127.0.0.1',
          ],
          workDir,
        );
        expect(certs.exitCode, certs.stderr).toBe(0);
        const metadata = { name: `${kind.toLowerCase()}-contract-7d9f8-abcde`, namespace: 'crdgate-system' };

        const server = await startContainer({
          image,
          pod: pod('Deployment'),
          metadata,
          mounts: { '/etc/crdgate/certs': certDir },
          nodeBinDir: dirname(process.execPath),
        });
        try {
          const ready = await Promise.race([
            eventually(
              'the readiness probe to answer 200',
              async () => {
                const answer = await server.probe('readinessProbe').catch(() => undefined);
                return answer?.status === 200 ? answer : undefined;
              },
              { timeoutMs: 60_000 },
            ),
            server.exited.then((exit) => {
              throw new Error(`exited ${JSON.stringify(exit)} before ready:\n${server.output()}`);
            }),
          ]);
          expect(ready).toEqual({ status: 200, body: 'ok' });
        } finally {
          expect(await server.stop(), server.output()).toEqual({ code: 0, signal: null });
        }

        const job = await startContainer({
          image,
          pod: pod('Job'),
          metadata,
          mounts: {},
          nodeBinDir: dirname(process.execPath),
        });
        const exit = await Promise.race([
          job.exited,
          new Promise((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000)),
        ]);
        expect({ exit, output: job.output() }).toEqual({
          exit: { code: 2, signal: null },
          output: expect.stringMatching(/^crdgate migrate: no kubeconfig: /m),
        });
      } finally {
        await image.remove();
      }
    }, 300_000);
});
