import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from './cli-runner.fixture.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runCli(dir, ...argv);

const geoDatabase = (spec: Record<string, unknown>, annotations: Record<string, string> = {}) => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps', annotations },
  spec,
});
const validSpec = { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '20Gi' } };

describe('crdgate check', () => {
  it('exits 0 for an allowed object (YAML), and says defaults would apply', async () => {
    await writeFile(join(dir, 'ok.yaml'), stringify(geoDatabase(validSpec)));
    const result = await run('check', '-f', 'ok.yaml');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^allowed \(defaults would set \d+ field/);
  });

  it('exits 1 for a denied object and prints one line per bad field', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify(geoDatabase({ ...validSpec, readReplicas: 99, storage: { size: '1Mi' } })));
    const result = await run('check', '-f', 'bad.json');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('OBJECT_INVALID');
    expect(result.stdout).toMatch(/^ {2}spec\.readReplicas: /m);
    expect(result.stdout).toMatch(/^ {2}spec\.storage\.size: /m);
  });

  it('decides a DELETE on the object being deleted', async () => {
    await writeFile(join(dir, 'protected.yaml'), stringify(geoDatabase(validSpec, { 'geo.example.com/deletion-protection': 'true' })));
    const result = await run('check', '-f', 'protected.yaml', '--operation', 'delete');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('DELETION_PROTECTED');
  });

  it.each([
    [['check'], '--file is required'],
    [['check', '-f', 'missing.yaml'], 'missing.yaml: cannot read the file: ENOENT'],
    [['check', '-f', 'ok.yaml', '--operation', 'PATCH'], '--operation must be'],
    [['check', '-f', 'ok.yaml', '--operation', 'UPDATE'], '--old'],
    [['check', '--nope'], "Unknown option '--nope'"],
    [['frobnicate'], 'unknown command "frobnicate"'],
  ])('exits 2 with one clear line for %j', async (argv, named) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 for a file that is not a Kubernetes object', async () => {
    await writeFile(join(dir, 'list.yaml'), '- a\n- b\n');
    const result = await run('check', '-f', 'list.yaml');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('expected one Kubernetes object');
  });
});

describe('crdgate certs', () => {
  it('writes a CA and a serving certificate, and keeps the CA on renewal', async () => {
    const first = await run('certs', '--out', 'pki', '--dns', 'crdgate.crdgate-system.svc', '--ip', '10.0.0.7', '--days', '30');
    expect(first.code).toBe(0);
    const ca = await readFile(join(dir, 'pki', 'ca.crt'));
    const cert = new X509Certificate(await readFile(join(dir, 'pki', 'tls.crt')));
    expect(cert.subjectAltName).toContain('DNS:crdgate.crdgate-system.svc');
    expect(cert.subjectAltName).toContain('IP Address:10.0.0.7');
    expect(cert.verify(new X509Certificate(ca).publicKey)).toBe(true);

    const second = await run('certs', '--out', 'pki');
    expect(second).toMatchObject({ code: 0 });
    expect(second.stdout).toContain('kept the CA');
    expect(await readFile(join(dir, 'pki', 'ca.crt'))).toEqual(ca);
  });

  it('exits 2 for a bad address or day count', async () => {
    expect((await run('certs', '--out', 'x', '--ip', '300.1.1.1')).code).toBe(2);
    expect((await run('certs', '--out', 'x', '--days', '0')).code).toBe(2);
  });

  it.each([
    ['below a file', 'a-file/pki', 'ENOTDIR'],
    ['that is a file', 'a-file', 'EEXIST'],
  ])('exits 2 with one line for an --out %s', async (_label, out, code) => {
    await writeFile(join(dir, 'a-file'), 'not a folder');
    const result = await run('certs', '--out', out);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`cannot write the certificates to ${join(dir, out)}`);
    expect(result.stderr).toContain(code);
  });
});

describe('crdgate serve: operating errors', () => {
  const occupied = createServer();
  let port: number;
  beforeAll(async () => {
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    port = (occupied.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => occupied.close(() => resolve())));

  it('exits 2 with one line for a port in use, before writing development certificates', async () => {
    const result = await run('serve', '--host', '127.0.0.1', '--port', String(port), '--cert-dir', 'in-use-certs');
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the address is already in use (EADDRINUSE)`);
    await expect(access(join(dir, 'in-use-certs'))).rejects.toThrow();
  });

  it.each([['99999'], ['-1'], ['http']])('exits 2 with one line for --port %s, before writing development certificates', async (bad) => {
    const result = await run('serve', `--port=${bad}`, '--cert-dir', 'bad-port-certs');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^crdgate serve: --port must be/);
    await expect(access(join(dir, 'bad-port-certs'))).rejects.toThrow();
  });

  it('exits 2 with one line for a --cert-dir below a file', async () => {
    await writeFile(join(dir, 'a-file'), 'not a folder');
    const result = await run('serve', '--host', '127.0.0.1', '--port', '0', '--cert-dir', 'a-file/certs');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('ENOTDIR');
  });

  it('exits 2 for --client-ca-endpoints naming something that is not an endpoint', async () => {
    const result = await run('serve', '--client-ca', 'ca.crt', '--client-ca-endpoints', 'validate,healthz', '--cert-dir', 'x');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--client-ca-endpoints takes a list of validate, mutate, convert');
  });
});

describe('crdgate --help', () => {
  it('lists the commands, and each command has its own help', async () => {
    const overview = await run('--help');
    expect(overview.code).toBe(0);
    for (const name of ['serve', 'certs', 'check']) {
      expect(overview.stdout).toContain(name);
      const help = await run(name, '--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`crdgate ${name}`);
    }
  });
});

describe('--contract MODULE', () => {
  it('serves a contract of the user\'s next to the built-in one, and refuses a module that is not one', async () => {
    const defineContractUrl = new URL('./contract/define-contract.ts', import.meta.url).href;
    await writeFile(
      join(dir, 'widget-contract.ts'),
      `import { defineContract } from ${JSON.stringify(defineContractUrl)};
export default () => defineContract({
  identity: { group: 'toys.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 3 } } } } } }],
  conversions: {},
});
`,
    );
    const widget = (size: number) => ({ apiVersion: 'toys.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size } });
    await writeFile(join(dir, 'small.yaml'), stringify(widget(2)));
    await writeFile(join(dir, 'big.yaml'), stringify(widget(9)));
    expect((await run('check', '-f', 'small.yaml', '--contract', 'widget-contract.ts')).code).toBe(0);
    const big = await run('check', '-f', 'big.yaml', '--contract', 'widget-contract.ts');
    expect(big.code).toBe(1);
    expect(big.stdout).toContain('spec.size');
    // Without the module, crdgate knows no Widget and says so.
    expect((await run('check', '-f', 'small.yaml')).stdout).toContain('KIND_UNKNOWN');

    await writeFile(join(dir, 'broken-contract.ts'), (await readFile(join(dir, 'widget-contract.ts'), 'utf8')).replace("storage: true", 'storage: false'));
    const broken = await run('check', '-f', 'small.yaml', '--contract', 'broken-contract.ts');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('exactly one version must be the storage version');

    await writeFile(join(dir, 'not-a-contract.mjs'), 'export default { hello: "world" };\n');
    const refused = await run('check', '-f', 'small.yaml', '--contract', 'not-a-contract.mjs');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not-a-contract.mjs');
  });
});
