import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { guideExamples } from '../repo/guide-examples.ts';
import { postJson, startCrdgateProcess } from './support/crdgate-process.ts';
import { npm, runCommand, scratchEnv } from './support/npm.ts';

// crdgate as a user gets it: the packed tarball installed into a project outside the repository, a contract
// written against the public API only ('crdgate', 'crdgate/testing'), typechecked strictly, and served.

const own = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
};

const contractSource = `import { defineContract, fieldError, type Contract, type Invariant } from 'crdgate';

export interface VolumeSpec {
  sizeGi: number;
  maxSizeGi?: number;
}

// Typed by its spec: sizeGi is a number here, without a cast.
export const withinMax: Invariant<VolumeSpec> = (volume) => {
  const spec = volume.spec;
  if (spec?.maxSizeGi === undefined || spec.sizeGi <= spec.maxSizeGi) return [];
  return [fieldError('spec.sizeGi', 'FieldValueInvalid', \`must not exceed maxSizeGi (\${spec.maxSizeGi})\`)];
};

// Never called: tsc must find this wrong (sizeGi is a number, not a string), or the types would be any.
export const typesAreReal = (spec: VolumeSpec) =>
  // @ts-expect-error toUpperCase does not exist on type number
  spec.sizeGi.toUpperCase();

export default function volumeContract(): Contract<VolumeSpec> {
  return defineContract<VolumeSpec>({
    identity: { group: 'disks.example.com', kind: 'Volume', plural: 'volumes', singular: 'volume', scope: 'Namespaced' },
    hub: 'v1',
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { type: 'object', properties: { spec: { type: 'object', required: ['sizeGi'], properties: {
        sizeGi: { type: 'integer', minimum: 1 }, maxSizeGi: { type: 'integer', minimum: 1 } } } } },
    }],
    conversions: {},
    invariants: [withinMax],
  });
}
`;
const volume = (spec: Record<string, unknown>) => ({
  apiVersion: 'disks.example.com/v1',
  kind: 'Volume',
  metadata: { name: 'v', namespace: 'default' },
  spec,
});

const testingSource = `import { contractTester } from 'crdgate/testing';
import volumeContract from './contract.ts';

const tester = contractTester(volumeContract());
const decide = (spec: Record<string, unknown>) =>
  tester.check({ apiVersion: 'disks.example.com/v1', kind: 'Volume', metadata: { name: 'v', namespace: 'default' }, spec });
console.log(JSON.stringify([decide({ sizeGi: 5, maxSizeGi: 10 }), decide({ sizeGi: 50, maxSizeGi: 10 })].map((r) => r.code)));
`;

const review = (uid: string, spec: Record<string, unknown>) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid,
    kind: { group: 'disks.example.com', version: 'v1', kind: 'Volume' },
    resource: { group: 'disks.example.com', version: 'v1', resource: 'volumes' },
    name: 'v',
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'admin' },
    object: volume(spec),
    oldObject: null,
  },
});

describe('the packed crdgate, installed into a project of its own', () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'crdgate-user-project-'));
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'volume-contract', private: true, type: 'module' }),
    );
    const installed = await npm(
      [
        'install',
        inject('packedCrdgate').tarball,
        `typescript@${own.devDependencies.typescript}`,
        `@types/node@${own.devDependencies['@types/node']}`,
      ],
      project,
    );
    expect(installed.exitCode, installed.stderr).toBe(0);
    await writeFile(join(project, 'contract.ts'), contractSource);
    await writeFile(join(project, 'decide.ts'), testingSource);
    // The contract guide's examples, as written: they import 'crdgate' like any user's code.
    await mkdir(join(project, 'guide'));
    for (const { file, code } of await guideExamples()) await writeFile(join(project, 'guide', file), code);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2024',
          types: ['node'],
          noEmit: true,
          allowImportingTsExtensions: true,
          erasableSyntaxOnly: true,
          verbatimModuleSyntax: true,
        },
        include: ['*.ts', 'guide/*.ts'],
      }),
    );
  }, 300_000);

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  it("typechecks a contract that imports only crdgate and crdgate/testing, and the guide's examples, under strict tsc", async () => {
    // No skipLibCheck: crdgate's declaration files are checked too.
    const checked = await runCommand(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], project);
    expect(checked.exitCode, checked.stdout + checked.stderr).toBe(0);
  });

  it("runs the contract guide's examples against the package", async () => {
    for (const { file } of await guideExamples()) {
      const ran = await runCommand(process.execPath, [join('guide', file)], project);
      expect(ran.exitCode, `${file}: ${ran.stderr}`).toBe(0);
    }
  });

  it('decides with crdgate/testing, without a server', async () => {
    const decided = await runCommand(process.execPath, ['decide.ts'], project);
    expect(decided.exitCode, decided.stderr).toBe(0);
    expect(JSON.parse(decided.stdout)).toEqual(['ALLOWED', 'OBJECT_INVALID']);
  });

  it('serves the contract (and not the built-in example) and decides a valid and an invalid object over HTTPS', async () => {
    const bin = join(project, 'node_modules', 'crdgate', 'dist', 'bin.js');
    const server = await startCrdgateProcess(
      bin,
      ['serve', '--port', '0', '--host', '127.0.0.1', '--cert-dir', 'certs', '--contract', './contract.ts'],
      project,
    );
    try {
      const ca = await readFile(join(project, 'certs', 'ca.crt'));
      const valid = await postJson(
        server.port,
        '/validate',
        review('11111111-1111-4111-8111-111111111111', { sizeGi: 5, maxSizeGi: 10 }),
        ca,
      );
      expect(valid).toEqual({
        status: 200,
        json: {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: '11111111-1111-4111-8111-111111111111', allowed: true },
        },
      });
      const invalid = await postJson(
        server.port,
        '/validate',
        review('22222222-2222-4222-8222-222222222222', { sizeGi: 50, maxSizeGi: 10 }),
        ca,
      );
      expect(invalid.status).toBe(200);
      expect(invalid.json.response).toMatchObject({
        uid: '22222222-2222-4222-8222-222222222222',
        allowed: false,
        status: { code: 422 },
      });
      expect(invalid.json.response.status.message).toContain('spec.sizeGi: must not exceed maxSizeGi (10)');
      // With --contract, the built-in example is not served.
      const geoDatabase = JSON.parse(
        await readFile(new URL('../fixtures/admission/create-geodatabase.json', import.meta.url), 'utf8'),
      );
      const unknown = await postJson(server.port, '/validate', geoDatabase, ca);
      expect(unknown.json.response).toMatchObject({
        allowed: false,
        status: {
          code: 403,
          message: expect.stringContaining('crdgate has no contract for GeoDatabase.geo.example.com'),
        },
      });
    } finally {
      expect(await server.stop(), server.output()).toBe(0);
    }
  });

  it('runs crdgate check with the API server engine the package carries, with no Go on PATH', async () => {
    const engineDir = join(project, 'node_modules', 'crdgate', 'dist', 'api-server-engine');
    const engine = await stat(join(engineDir, 'engine.wasm'));
    expect(engine.size).toBeGreaterThan(1_000_000);
    // The WebAssembly build only: a native one would be for the machine that packed it, not for every machine.
    expect(await stat(join(engineDir, 'engine-native')).catch(() => 'absent')).toBe('absent');
    const manifest = (name: string, spec: Record<string, unknown>) =>
      JSON.stringify({ ...volume(spec), metadata: { name, namespace: 'default' } });
    await writeFile(
      join(project, 'volumes.json'),
      `{"apiVersion":"v1","kind":"List","items":[${manifest('good', { sizeGi: 5 })},${manifest('typo', { sizeGi: 5, sizeGB: 5 })}]}`,
    );
    const bin = join(project, 'node_modules', 'crdgate', 'dist', 'bin.js');
    // Only Node's own folder on PATH: no go, so nothing can be built.
    const checked = await runCommand(
      process.execPath,
      [bin, 'check', '-f', 'volumes.json', '--contract', './contract.ts', '-o', 'json'],
      project,
      300_000,
      { PATH: dirname(process.execPath) },
    );
    expect(checked.exitCode, checked.stderr).toBe(1);
    const report = JSON.parse(checked.stdout);
    const byName = (name: string) => report.objects.find((o: any) => o.name === name);
    expect(byName('good')).toMatchObject({ allowed: true });
    // The API server's own words for a field the schema does not have, under kubectl's default Strict validation.
    expect(byName('typo')).toMatchObject({
      allowed: false,
      code: 'OBJECT_INVALID',
      message:
        'Volume in version "v1" cannot be handled as a Volume: strict decoding error: unknown field "spec.sizeGB"',
    });
  });

  it('is a one-line error and exit 2 for a broken contract, not a stack trace', async () => {
    await writeFile(join(project, 'broken.ts'), contractSource.replace("hub: 'v1'", "hub: 'v2'"));
    const bin = join(project, 'node_modules', 'crdgate', 'dist', 'bin.js');
    const broken = await runCommand(process.execPath, [bin, 'fsa', '--contract', './broken.ts'], project);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr.trim().split('\n')).toEqual([expect.stringContaining('hub "v2" is not one of the versions')]);
  });
});

describe('the checkout, after `npm pack` built dist/ in it', () => {
  it('runs dist/bin.js as a command, as `npx crdgate` does there (tsc alone leaves it without its execute bit)', async () => {
    const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
    expect((await stat(bin)).mode & 0o111).toBe(0o111);
    // The file itself is run, not node with it: its #!/usr/bin/env node must find the pinned Node first.
    const env = { ...scratchEnv(), PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}` };
    const ran = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(bin, ['fsa'], { env }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^stateDiagram-v2\n/);
  });
});
