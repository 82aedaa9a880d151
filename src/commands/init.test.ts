import { execFile } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { cliInTempDir } from '../cli-runner.fixture.ts';
import { CommandError, commandErrors } from '../errors.ts';
import { initCommand } from './init.ts';

// The scaffolded project's own tests, its install from vendor/ (crdgate packed as it runs) and its end-to-end test
// run in test/e2e/init.e2e.test.ts; here, what the command writes and refuses. These runs name crdgate with
// --crdgate: without it, init packs the running crdgate, and from this checkout that is a whole build.

const { dir: tempDir, run } = cliInTempDir('crdgate-init-');
const own = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
const crdgateSpec = 'file:../crdgate-0.1.0.tgz';

async function projectFiles(name: string): Promise<string[]> {
  const entries = await readdir(join(tempDir(), name), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(join(tempDir(), name).length + 1))
    .sort();
}

const read = (...path: string[]) => readFile(join(tempDir(), ...path), 'utf8');

describe('crdgate init', () => {
  it('writes a project for one version of the kind, pinned to the versions crdgate itself uses', async () => {
    const result = await run(
      'init',
      'bucket',
      '--group',
      'storage.example.com',
      '--kind',
      'Bucket',
      '--crdgate',
      crdgateSpec,
      '--skip-install',
    );
    expect(result, result.stderr).toMatchObject({ code: 0 });
    // Without a lockfile, the README's `npm ci` would fail: the last line says what to run instead.
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      `next: cd ${join(tempDir(), 'bucket')} && npm install && npm test (npm install makes package-lock.json, which npm ci needs)`,
    );
    expect(await projectFiles('bucket')).toEqual(
      [
        '.dockerignore',
        '.gitignore',
        'Dockerfile',
        'README.md',
        'examples/bucket.yaml',
        'package.json',
        'src/contract.e2e.test.ts',
        'src/contract.test.ts',
        'src/contract.ts',
        'tsconfig.json',
      ].sort(),
    );
    const project = JSON.parse(await read('bucket', 'package.json'));
    expect(project.dependencies).toEqual({ crdgate: crdgateSpec });
    expect(project.devDependencies).toEqual({
      node: own.devDependencies.node,
      typescript: own.devDependencies.typescript,
      '@types/node': own.devDependencies['@types/node'],
    });
    expect(project.scripts.dev).toBe('crdgate dev --contract ./src/contract.ts');
    // One version: nothing to convert to.
    expect(project.scripts.convert).toBeUndefined();
    // The Helm chart of the same install, rendered where .gitignore and .dockerignore keep it out.
    expect(project.scripts.chart).toBe(`${project.scripts.manifests} --format helm --out chart`);
    expect((await read('bucket', '.gitignore')).split('\n')).toContain('chart/');
    expect((await read('bucket', '.dockerignore')).split('\n')).toContain('chart');
    const contract = await read('bucket', 'src', 'contract.ts');
    expect(contract).toContain("export const group = 'storage.example.com';");
    expect(contract).toContain("kind: 'Bucket', plural: 'buckets', singular: 'bucket', scope: 'Namespaced'");
    expect(contract).not.toContain('specMappingConversion');
    const dockerfile = await read('bucket', 'Dockerfile');
    expect(dockerfile).toContain(`FROM node:${own.devDependencies.node}-bookworm-slim`);
    // The crdgate SPEC given is fetched by npm; there is no vendor/ folder for the image to copy.
    expect(dockerfile).not.toMatch(/^COPY vendor/m);
  });

  it('writes a conversion and its round-trip test per version other than the hub', async () => {
    const result = await run(
      'init',
      'queue',
      '--group',
      'q.example.com',
      '--kind',
      'Queue',
      '--versions',
      'v1alpha1,v1beta1,v1',
      '--hub',
      'v1beta1',
      '--scope',
      'Cluster',
      '--crdgate',
      crdgateSpec,
      '--skip-install',
    );
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const files = await projectFiles('queue');
    expect(files).toEqual(
      expect.arrayContaining(['src/versions/v1alpha1.ts', 'src/versions/v1.ts', 'src/conversion.test.ts']),
    );
    expect(files).not.toContain('src/versions/v1beta1.ts');
    const project = JSON.parse(await read('queue', 'package.json'));
    expect(project.devDependencies['fast-check']).toBe(own.devDependencies['fast-check']);
    expect(project.scripts.convert).toBe('crdgate convert --contract ./src/contract.ts');
    const contract = await read('queue', 'src', 'contract.ts');
    expect(contract).toContain("export const hub = 'v1beta1';");
    expect(contract).toContain("scope: 'Cluster'");
    expect(contract.match(/specMappingConversion\(\{/g)).toHaveLength(2);
    expect(await read('queue', 'examples', 'queue.yaml')).toMatch(/^apiVersion: q\.example\.com\/v1beta1$/m);
  });

  it('keeps a kind already stored in an older version stored there with --storage, and says how to move it', async () => {
    const result = await run(
      'init',
      'cache',
      '--group',
      'cache.example.com',
      '--kind',
      'CacheCluster',
      '--versions',
      'v1alpha1,v1',
      '--storage',
      'v1alpha1',
      '--crdgate',
      crdgateSpec,
      '--skip-install',
    );
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const contract = await read('cache', 'src', 'contract.ts');
    expect(contract).toContain("export const hub = 'v1';");
    expect(contract).toMatch(/\{ name: 'v1alpha1', served: true, storage: true,/);
    expect(contract).toMatch(/\{ name: 'v1', served: true, storage: false,/);
    const readme = await read('cache', 'README.md');
    expect(readme).toContain('with `v1` as the hub (the version the\nrules are written against), stored in `v1alpha1`');
    expect(readme).toContain('set `storage: true` on `v1` (and false on `v1alpha1`)');
  });

  it('ends in NPM_FAILED, with what npm said, when it cannot make the lockfile', async () => {
    const result = await run(
      'init',
      'unreachable',
      '--group',
      'a.example.com',
      '--kind',
      'A',
      '--crdgate',
      'file:vendor/missing.tgz',
    );
    expect(result.code).toBe(commandErrors.NPM_FAILED.exitStatus);
    const [line, ...said] = result.stderr.trimEnd().split('\n');
    expect(line).toMatch(/^crdgate init: .*package-lock\.json/);
    expect(said.join('\n')).toMatch(/npm error .*ENOENT.*vendor\/missing\.tgz/);
    // The project is written all the same.
    expect(await read('unreachable', 'package.json')).toContain('file:vendor/missing.tgz');

    const again = { DIR: 'unreachable-too', group: 'a.example.com', kind: 'A', crdgate: 'file:vendor/missing.tgz' };
    const io = { stdout: () => {}, stderr: () => {}, cwd: tempDir(), waitForStop: () => new Promise<string>(() => {}) };
    const failure = await initCommand.run(again, io).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CommandError);
    expect(failure).toMatchObject({ code: 'NPM_FAILED', detail: expect.stringMatching(/npm error /) });
  });

  it.each([
    [['init', '--group', 'a.example.com', '--kind', 'A'], 'DIR is required'],
    [['init', 'x', '--kind', 'A'], '--group is required'],
    [
      ['init', 'x', '--group', 'nodots', '--kind', 'A'],
      '--group: Invalid value: "nodots": should be a domain with at least one dot',
    ],
    [['init', 'x', '--group', 'a.example.com', '--kind', `A${'a'.repeat(60)}`], 'spec.names.listKind: Invalid value'],
    [['init', 'x', '--group', 'a.example.com', '--kind', 'lower'], '--kind "lower" must be UpperCamelCase'],
    [['init', 'x', '--group', 'apps.k8s.io', '--kind', 'A'], '--group "apps.k8s.io" is Kubernetes\' own'],
    [
      ['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--plural', 'Bad_Plural'],
      '--plural: Invalid value: "Bad_Plural"',
    ],
    [['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--versions', 'v1,V2'], '"V2" is not a version name'],
    [
      ['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--versions', 'v1beta1,v1', '--hub', 'v2'],
      '--hub "v2" is not one of the versions',
    ],
    [
      ['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--versions', 'v1beta1,v1', '--storage', 'v1alpha1'],
      '--storage "v1alpha1" is not one of the versions',
    ],
    [
      ['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--scope', 'Global'],
      '--scope "Global" must be Namespaced or Cluster',
    ],
    [['init', 'x', 'y', '--group', 'a.example.com', '--kind', 'A'], 'unexpected argument "y"'],
    [
      ['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--crd-owner', 'external'],
      '--crd-owner: only with --from-crd',
    ],
    [
      ['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--example', 'a.yaml'],
      '--example: only with --from-crd',
    ],
  ])('exits 2 with one line for %j', async (argv, named) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses to write into a folder that is not empty', async () => {
    await writeFile(join(tempDir(), 'precious.txt'), 'keep me');
    const result = await run('init', '.', '--group', 'a.example.com', '--kind', 'A', '--skip-install');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not empty');
    expect(await readFile(join(tempDir(), 'precious.txt'), 'utf8')).toBe('keep me');
  });

  describe('--from-crd', () => {
    const fixture = new URL('../../test/fixtures/crds/cachepools.cache.example.com.yaml', import.meta.url).pathname;
    /** The files of a project made from the CRD file `crdFile`, for a kind whose singular is `singular`. */
    const fromCrdProjectFiles = (crdFile: string, singular: string) =>
      [
        '.dockerignore',
        '.gitignore',
        'Dockerfile',
        'README.md',
        `crds/${crdFile}`,
        `examples/${singular}.yaml`,
        'package.json',
        'src/contract.e2e.test.ts',
        'src/contract.test.ts',
        'src/contract.ts',
        'tsconfig.json',
      ].sort();
    /** The fixture with a v1alpha1 served beside its storage version, v1. */
    const writeTwoVersionCrd = async (name: string) => {
      const crd = parse(await readFile(fixture, 'utf8'));
      const v1 = crd.spec.versions[0];
      crd.spec.versions = [{ ...v1, name: 'v1alpha1', storage: false }, v1];
      await writeFile(join(tempDir(), name), stringify(crd));
    };

    it("copies the CRD into the project, and writes a contract that reads it and adds only crdgate's rules", async () => {
      const result = await run('init', 'pool', '--from-crd', fixture, '--crdgate', crdgateSpec, '--skip-install');
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(result.stdout).toContain('wrote a CachePool.cache.example.com project');
      expect(await projectFiles('pool')).toEqual(fromCrdProjectFiles('cachepools.cache.example.com.yaml', 'cachepool'));
      expect(await read('pool', 'crds', 'cachepools.cache.example.com.yaml')).toBe(await readFile(fixture, 'utf8'));
      const contract = await read('pool', 'src', 'contract.ts');
      expect(contract).toContain(
        "export const crd = readCrdFile(new URL('../crds/cachepools.cache.example.com.yaml', import.meta.url));",
      );
      expect(contract).toContain('...fromCrd(crd),');
      // Nothing of the CRD is restated: no schema, no names.
      expect(contract).not.toMatch(/openAPIV3Schema|plural:|kind: 'CachePool'/);
      expect(await read('pool', 'Dockerfile')).toMatch(/^COPY crds \.\/crds$/m);
      const project = JSON.parse(await read('pool', 'package.json'));
      expect(project.name).toBe('cachepool-contract');
      // `npm run fsa`, as docs/own-contracts.md says: it draws the machine once one is written.
      expect(project.scripts.fsa).toBe('crdgate fsa --contract ./src/contract.ts');
      // An example the schema takes: the required memory, a Quantity.
      expect(parse(await read('pool', 'examples', 'cachepool.yaml'))).toEqual({
        apiVersion: 'cache.example.com/v1',
        kind: 'CachePool',
        metadata: { name: 'example' },
        spec: { memory: 1 },
      });
      expect(await read('pool', 'src', 'contract.test.ts')).toContain("test('the example is allowed'");
    });

    it('writes a conversion for each version other than the storage version, the hub', async () => {
      await writeTwoVersionCrd('two-versions.yaml');
      const result = await run(
        'init',
        'pool2',
        '--from-crd',
        'two-versions.yaml',
        '--crdgate',
        crdgateSpec,
        '--skip-install',
      );
      expect(result, result.stderr).toMatchObject({ code: 0 });
      const contract = await read('pool2', 'src', 'contract.ts');
      expect(contract).toContain('v1alpha1: specMappingConversion(');
      expect(contract).toContain("conversionAnnotation: 'cache.example.com/conversion-data',");
    });

    it('takes the CRD named in a file of several', async () => {
      const crd = parse(await readFile(fixture, 'utf8'));
      const other = {
        ...crd,
        metadata: { name: 'others.cache.example.com' },
        spec: {
          ...crd.spec,
          names: {
            ...crd.spec.names,
            kind: 'Other',
            listKind: 'OtherList',
            plural: 'others',
            singular: 'other',
            shortNames: [],
          },
        },
      };
      await writeFile(join(tempDir(), 'bundle.yaml'), [stringify(crd), stringify(other)].join('---\n'));
      const ambiguous = await run('init', 'b', '--from-crd', 'bundle.yaml', '--crdgate', crdgateSpec, '--skip-install');
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toContain(
        '--from-crd bundle.yaml: 2 CustomResourceDefinitions (cachepools.cache.example.com, others.cache.example.com)',
      );
      const result = await run(
        'init',
        'b',
        '--from-crd',
        'bundle.yaml',
        '--crd-name',
        'others.cache.example.com',
        '--crdgate',
        crdgateSpec,
        '--skip-install',
      );
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(await read('b', 'src', 'contract.ts')).toContain(
        "readCrdFile(new URL('../crds/bundle.yaml', import.meta.url), { name: 'others.cache.example.com' })",
      );
    });

    it("with --crd-owner external, guards an operator's CRD: a contract that does not own it, no conversion, and a README that says so", async () => {
      const operator = new URL('../../test/fixtures/crds/dbops.example.com-operator.yaml', import.meta.url).pathname;
      const result = await run(
        'init',
        'guard',
        '--from-crd',
        operator,
        '--crd-name',
        'dbclusters.dbops.example.com',
        '--crd-owner',
        'external',
        '--crdgate',
        crdgateSpec,
        '--skip-install',
      );
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(result.stdout).toContain('wrote a DbCluster.dbops.example.com project');
      expect(await projectFiles('guard')).toEqual(fromCrdProjectFiles('dbops.example.com-operator.yaml', 'dbcluster'));
      const contract = await read('guard', 'src', 'contract.ts');
      expect(contract).toContain(
        "readCrdFile(new URL('../crds/dbops.example.com-operator.yaml', import.meta.url), { name: 'dbclusters.dbops.example.com' })",
      );
      expect(contract).toContain("...fromCrd(crd, { crdOwner: 'external' }),");
      expect(contract).not.toMatch(/specMappingConversion|conversionAnnotation/);
      expect(await read('guard', 'src', 'contract.test.ts')).toContain("assert.equal(contract.crdOwner, 'external');");
      expect(await read('guard', 'Dockerfile')).toMatch(/^COPY crds \.\/crds$/m);
      const readme = await read('guard', 'README.md');
      expect(readme).toMatch(/^# DbCluster guard$/m);
      expect(readme).toContain(
        'crdgate renders **no CRD, no conversion and no storage-version migration** for the kind',
      );
      expect(readme).toContain(
        "`npm run dev` and the end-to-end test apply the copy in `crds/` in the operator's place",
      );
      expect(readme).toContain('node_modules/crdgate/docs/guarding-an-operator.md');
      expect(readme).toContain('kubectl apply --server-side -k manifests/overlays/cert-manager');
    });

    it("takes an operator's CRD whose kind is lowercase as written, and derives readable identifiers and file names from it", async () => {
      const postgresql = new URL('../../test/fixtures/crds/postgresqls.acid.example.com.yaml', import.meta.url)
        .pathname;
      const result = await run(
        'init',
        'pg',
        '--from-crd',
        postgresql,
        '--crd-owner',
        'external',
        '--crdgate',
        crdgateSpec,
        '--skip-install',
      );
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('wrote a postgresql.acid.example.com project');
      expect(await projectFiles('pg')).toEqual(fromCrdProjectFiles('postgresqls.acid.example.com.yaml', 'postgresql'));
      const contract = await read('pg', 'src', 'contract.ts');
      expect(contract).toContain('export type PostgresqlSpec = Record<string, unknown>;');
      expect(contract).toContain('export default function postgresqlContract(): Contract<PostgresqlSpec> {');
      const test = await read('pg', 'src', 'contract.test.ts');
      expect(test).toContain("import postgresqlContract, { crd } from './contract.ts';");
      expect(test).toContain("assert.equal(contract.identity.kind, 'postgresql');");
      expect(parse(await read('pg', 'examples', 'postgresql.yaml'))).toMatchObject({ kind: 'postgresql' });
      expect(JSON.parse(await read('pg', 'package.json'))).toMatchObject({ name: 'postgresql-contract' });
    });

    it('derives identifiers from a kind with dashes and digits, each part a capital', async () => {
      const crd = parse(await readFile(fixture, 'utf8'));
      crd.metadata.name = 'my-s3-pools.cache.example.com';
      crd.spec.names = { kind: 'my-s3-pool', plural: 'my-s3-pools' };
      await writeFile(join(tempDir(), 'dashed.yaml'), stringify(crd));
      const result = await run(
        'init',
        'dashed',
        '--from-crd',
        'dashed.yaml',
        '--crdgate',
        crdgateSpec,
        '--skip-install',
      );
      expect(result, result.stderr).toMatchObject({ code: 0 });
      const contract = await read('dashed', 'src', 'contract.ts');
      expect(contract).toContain('export default function myS3PoolContract(): Contract<MyS3PoolSpec> {');
      expect(await projectFiles('dashed')).toContain('examples/my-s3-pool.yaml');
    });

    it('with --crd-owner external, demands no conversion of a CRD with several versions: the operator converts', async () => {
      await writeTwoVersionCrd('operator-two-versions.yaml');
      const result = await run(
        'init',
        'guard2',
        '--from-crd',
        'operator-two-versions.yaml',
        '--crd-owner',
        'external',
        '--crdgate',
        crdgateSpec,
        '--skip-install',
      );
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(await read('guard2', 'src', 'contract.ts')).not.toMatch(/specMappingConversion|conversions:/);
    });

    /** A CRD of one version whose spec schema is `spec`: a kind of the user's, in a file of the temp folder. */
    const writeCrd = async (file: string, spec: Record<string, unknown>) => {
      const crd = parse(await readFile(fixture, 'utf8'));
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec = spec;
      await writeFile(join(tempDir(), file), stringify(crd));
    };
    /** A spec whose one field a CEL rule holds to what init cannot guess from the schema or the rule. */
    const tokenSpec = {
      type: 'object',
      required: ['token'],
      properties: { token: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.token.endsWith('-from-the-vault')", message: 'the token is wrong' }],
    };
    /**
     * The scaffolded project's src/contract.test.ts run with node --test, crdgate imported from this checkout's
     * source in place of the package the project would install: its exit code and what it printed.
     */
    const runContractTests = async (project: string) => {
      const modules: Record<string, string> = {
        crdgate: new URL('../index.ts', import.meta.url).href,
        'crdgate/testing': new URL('../testing.ts', import.meta.url).href,
      };
      for (const file of ['contract.ts', 'contract.test.ts']) {
        const path = join(tempDir(), project, 'src', file);
        const source = await readFile(path, 'utf8');
        await writeFile(
          path,
          source.replace(/from '(crdgate(?:\/testing)?)'/g, (_, name: string) => `from '${modules[name]}'`),
        );
      }
      return new Promise<{ code: number; output: string }>((resolve) =>
        execFile(
          process.execPath,
          ['--test', '--test-reporter=tap', 'src/contract.test.ts'],
          { cwd: join(tempDir(), project) },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
        ),
      );
    };
    const initFrom = (dir: string, file: string, ...flags: string[]) =>
      run('init', dir, '--from-crd', file, '--crdgate', crdgateSpec, '--skip-install', ...flags);

    it('makes an example the API server takes from patterns, formats, bounds and nested required objects, and says so', async () => {
      await writeCrd('patterned.yaml', {
        type: 'object',
        required: ['memory', 'name', 'window', 'tls'],
        properties: {
          memory: { type: 'string', pattern: '^[1-9][0-9]*(Mi|Gi)$' },
          name: { type: 'string', pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', minLength: 4, maxLength: 12 },
          window: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$' },
          replicas: { type: 'integer', minimum: 3 },
          tls: { type: 'object', required: ['issuer'], properties: { issuer: { type: 'string', format: 'hostname' } } },
        },
      });
      const result = await initFrom('patterned', 'patterned.yaml');
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(
        /examples\/cachepool\.yaml: an example made from the schema, taken by the API server engine \(kube-apiserver v1\.36\) and crdgate \(\d+ tr(y|ies)\)/,
      );
      const example = parse(await read('patterned', 'examples', 'cachepool.yaml'));
      expect(Object.keys(example.spec).sort()).toEqual(['memory', 'name', 'tls', 'window']);
      expect(example.spec.memory).toMatch(/^[1-9][0-9]*(Mi|Gi)$/);
      const tests = await read('patterned', 'src', 'contract.test.ts');
      expect(tests).toContain(`const example = ${JSON.stringify(example)};`);
      expect(tests).not.toContain('TODO: crdgate init could not make');
      const ran = await runContractTests('patterned');
      expect(ran.code, ran.output).toBe(0);
      expect(ran.output).toMatch(/^ok \d+ - the example is allowed$/m);
      expect(ran.output).toMatch(/^# fail 0$/m);
    });

    it('says when it cannot make an example, and writes the example tests to say what to do', async () => {
      await writeCrd('ruled.yaml', tokenSpec);
      const result = await initFrom('ruled', 'ruled.yaml');
      expect(result, result.stderr).toMatchObject({ code: 0 });
      expect(result.stderr).toMatch(/^warning: could not make an example object the CRD's schema takes \(\d+ tries/m);
      expect(result.stderr).toMatch(/^warning: {3}spec: .*the token is wrong$/m);
      expect(result.stderr).toContain('or run init again with --example FILE');
      expect(await read('ruled', 'examples', 'cachepool.yaml')).toMatch(
        /^# TODO: crdgate init could not make an object the CRD's schema takes[^]*# {3}spec: .*the token is wrong$[^]*^kind: CachePool$/m,
      );
      // The tests are written all the same, and their failure says what to do.
      for (const file of ['contract.test.ts', 'contract.e2e.test.ts']) {
        const tests = await read('ruled', 'src', file);
        expect(tests, file).toContain("// TODO: crdgate init could not make an object the CRD's schema takes");
        expect(tests, file).toContain(
          "'crdgate init could not make an example the CRD takes: write one in examples/cachepool.yaml (npm run check -- -f examples/cachepool.yaml decides it) and put it in place of the example in this file: '",
        );
      }
      // Run, the example test fails with those words and the refusal; the others pass.
      const ran = await runContractTests('ruled');
      expect(ran.code).not.toBe(0);
      expect(ran.output).toContain(
        'crdgate init could not make an example the CRD takes: write one in examples/cachepool.yaml',
      );
      expect(ran.output).toContain('the token is wrong');
      expect(ran.output).toMatch(/^# fail 1$/m);
    });

    it('takes an example of your own with --example, refusing one the API server refuses', async () => {
      await writeCrd('ruled2.yaml', tokenSpec);
      const mine = {
        apiVersion: 'cache.example.com/v1',
        kind: 'CachePool',
        metadata: { name: 'mine', namespace: 'shop' },
      };
      await writeFile(join(tempDir(), 'mine.yaml'), stringify({ ...mine, spec: { token: 'k1-from-the-vault' } }));
      const result = await initFrom('mine', 'ruled2.yaml', '--example', 'mine.yaml');
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('examples/cachepool.yaml: your example, taken by the API server engine');
      // Its namespace is left out: the tests put it in one of their own.
      expect(parse(await read('mine', 'examples', 'cachepool.yaml'))).toEqual({
        apiVersion: 'cache.example.com/v1',
        kind: 'CachePool',
        metadata: { name: 'mine' },
        spec: { token: 'k1-from-the-vault' },
      });
      await writeFile(join(tempDir(), 'wrong.yaml'), stringify({ ...mine, spec: { token: 'guess' } }));
      const refused = await initFrom('wrong', 'ruled2.yaml', '--example', 'wrong.yaml');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--example wrong\.yaml is refused: spec: .*the token is wrong/);
      await writeFile(join(tempDir(), 'other.yaml'), stringify({ ...mine, kind: 'Other' }));
      const other = await initFrom('other', 'ruled2.yaml', '--example', 'other.yaml');
      expect(other.code).toBe(2);
      expect(other.stderr).toContain('--example other.yaml must be a CachePool of cache.example.com/v1');
    });

    it('with --crd-owner external, takes a CRD that serves no version (the API server does), saying nothing reaches it; owned, refuses it', async () => {
      // NATS' StreamTemplate, retired by its operator: one version, stored, not served. kube-apiserver v1.36 takes it
      // (test/e2e/crd-corpus.e2e.test.ts).
      const crd = parse(await readFile(fixture, 'utf8'));
      crd.spec.versions[0].served = false;
      await writeFile(join(tempDir(), 'retired.yaml'), stringify(crd));
      const flags = ['--from-crd', 'retired.yaml', '--crdgate', crdgateSpec, '--skip-install'];
      const external = await run('init', 'retired', ...flags, '--crd-owner', 'external');
      expect(external, external.stderr).toMatchObject({ code: 0 });
      expect(external.stderr).toBe(
        'warning: --from-crd retired.yaml: the CRD serves no version: kube-apiserver takes it, but no object of the kind ' +
          'can be read or written, so nothing reaches the contract until a version is served\n',
      );
      const owned = await run('init', 'retired-owned', ...flags);
      expect(owned.code).toBe(2);
      expect(owned.stderr).toContain(
        "storage version v1 must be served: crdgate's storage migration reads and writes objects in it",
      );
    });

    it.each([
      [['--group', 'a.example.com'], '--group: with --from-crd, the CRD says that'],
      [['--storage', 'v1'], '--storage: with --from-crd, the CRD says that'],
      [[], 'cannot read the file: ENOENT', 'missing.yaml'],
      [['--crd-owner', 'operator'], '--crd-owner must be crdgate or external, got "operator"'],
    ])('exits 2 with one line for %j', async (flags, named, file = fixture) => {
      const result = await run('init', 'x', '--from-crd', file, ...flags);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(named);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    });

    it.each<[string, (crd: any) => unknown, string]>([
      [
        'not a CRD',
        () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }),
        'no CustomResourceDefinition in the file',
      ],
      [
        'a CRD without a storage version',
        (crd) => ({ ...crd, spec: { ...crd.spec, versions: [{ ...crd.spec.versions[0], storage: false }] } }),
        'the CustomResourceDefinition cachepools.cache.example.com has no storage version',
      ],
      [
        'a CRD whose schema the API server refuses',
        (crd) => {
          crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.memory.anyOf.reverse();
          return crd;
        },
        'the CRD does not make a contract that loads: contract cachepools.cache.example.com is invalid: version v1: openAPIV3Schema.properties[spec].properties[memory].anyOf[0].type: Forbidden: must be empty to be structural',
      ],
      [
        // Left to the API server by crdgate's own checks: its engine refuses it, in its words.
        'a CRD whose default fails its own schema',
        (crd) => {
          crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.default = 'three';
          return crd;
        },
        'kube-apiserver would refuse this CRD: spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: "string"',
      ],
      [
        'a CRD whose kind the API server refuses',
        (crd) => ({ ...crd, spec: { ...crd.spec, names: { ...crd.spec.names, kind: 'Cache_Pool' } } }),
        'the CRD does not make a contract that loads: contract cachepools.cache.example.com is invalid: spec.names.kind: Invalid value: "Cache_Pool": may have mixed case, but should otherwise match: a DNS-1035 label',
      ],
    ])('refuses %s, saying what is wrong', async (_case, change, named) => {
      await writeFile(join(tempDir(), 'input.yaml'), stringify(change(parse(await readFile(fixture, 'utf8')))));
      const result = await run('init', 'x', '--from-crd', 'input.yaml', '--crdgate', crdgateSpec, '--skip-install');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--from-crd input.yaml: ${named}`);
    });
  });
});
