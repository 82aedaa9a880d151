import { spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { commandLoaders } from './cli.ts';
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
  it('exits 0 for an allowed object (YAML), and names each field the defaults would set', async () => {
    await writeFile(join(dir, 'ok.yaml'), stringify(geoDatabase(validSpec)));
    const result = await run('check', '-f', 'ok.yaml');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      /^ok\.yaml:1 \(document 1\): GeoDatabase maps\/db \(geo\.example\.com\/v1\) CREATE: allowed$/m,
    );
    const defaults = result.stdout.split('\n').filter((line) => line.startsWith('  default '));
    expect(defaults).toEqual([
      '  default metadata.labels: {"geo.example.com/postgres-major":"16"}',
      '  default spec.readReplicas: 0',
      '  default spec.caches: []',
    ]);
    expect(result.stdout).toMatch(/^checked 1 object: 1 allowed, 0 denied/m);
  });

  it.each(['yaml', 'json'])(
    'prints the defaulted object with --defaulted %s, and the decision on standard error',
    async (format) => {
      await writeFile(join(dir, 'ok.yaml'), stringify(geoDatabase(validSpec)));
      const result = await run('check', '-f', 'ok.yaml', '--defaulted', format);
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/CREATE: allowed\n {2}default metadata\.labels/);
      const printed = format === 'json' ? JSON.parse(result.stdout) : parse(result.stdout);
      expect(printed.spec).toEqual({ ...validSpec, readReplicas: 0, caches: [] });
      expect(printed.metadata.labels).toEqual({ 'geo.example.com/postgres-major': '16' });
    },
  );

  it('prints no object with --defaulted when the object is denied', async () => {
    await writeFile(join(dir, 'bad.json'), JSON.stringify(geoDatabase({ ...validSpec, readReplicas: 99 })));
    const result = await run('check', '-f', 'bad.json', '--defaulted', 'yaml');
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/CREATE: denied OBJECT_INVALID\n {2}spec\.readReplicas: /);
  });

  it('exits 1 for a denied object and prints one line per bad field', async () => {
    await writeFile(
      join(dir, 'bad.json'),
      JSON.stringify(geoDatabase({ ...validSpec, readReplicas: 99, storage: { size: '1Mi' } })),
    );
    const result = await run('check', '-f', 'bad.json');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('OBJECT_INVALID');
    expect(result.stdout).toMatch(/^ {2}spec\.readReplicas: /m);
    // The API server's answer first; what the webhook refuses next on a line of its own.
    expect(result.stdout).toMatch(/^ {2}then the webhook: spec\.storage\.size: /m);
  });

  it('decides a DELETE on the object being deleted', async () => {
    await writeFile(
      join(dir, 'protected.yaml'),
      stringify(geoDatabase(validSpec, { 'geo.example.com/deletion-protection': 'true' })),
    );
    const result = await run('check', '-f', 'protected.yaml', '--delete');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('DELETION_PROTECTED');
  });

  it.each([
    [['check'], '--file is required'],
    [['check', '-f', 'missing.yaml'], 'missing.yaml: cannot read: ENOENT'],
    [['check', '-f', 'ok.yaml', '--operation', 'DELETE'], "Unknown option '--operation'"],
    [['check', '--nope'], "Unknown option '--nope'"],
    [['check', '-f', 'ok.yaml', '-o', 'xml'], '-o must be text, json or junit'],
    [['check', '-f', 'ok.yaml', '-o', 'yaml'], '--defaulted yaml|json'],
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
    expect(result.stderr).toContain('no Kubernetes object');
  });
});

describe('crdgate certs', () => {
  it('writes a CA and a serving certificate, and keeps the CA on renewal', async () => {
    const first = await run(
      'certs',
      '--out',
      'pki',
      '--dns',
      'crdgate.crdgate-system.svc',
      '--ip',
      '10.0.0.7',
      '--days',
      '30',
    );
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

  it.each([['99999'], ['-1'], ['http']])(
    'exits 2 with one line for --port %s, before writing development certificates',
    async (bad) => {
      const result = await run('serve', `--port=${bad}`, '--cert-dir', 'bad-port-certs');
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^crdgate serve: --port must be/);
      await expect(access(join(dir, 'bad-port-certs'))).rejects.toThrow();
    },
  );

  it('exits 2 with one line for a --cert-dir below a file', async () => {
    await writeFile(join(dir, 'a-file'), 'not a folder');
    const result = await run('serve', '--host', '127.0.0.1', '--port', '0', '--cert-dir', 'a-file/certs');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('ENOTDIR');
  });

  it('exits 2 for --client-ca-endpoints naming something that is not an endpoint', async () => {
    const result = await run(
      'serve',
      '--client-ca',
      'ca.crt',
      '--client-ca-endpoints',
      'validate,healthz',
      '--cert-dir',
      'x',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--client-ca-endpoints takes a list of validate, mutate, convert');
  });
});

describe('crdgate serve --manage-certs: usage errors, before anything is bound or written', () => {
  it.each([
    [['--name', 'team-a', '--cert-dir', 'never-written'], '--name only apply with --manage-certs'],
    [['--ca-overlap', '1m', '--cert-ip', '127.0.0.1'], '--cert-ip, --ca-overlap only apply with --manage-certs'],
    [['--manage-certs'], '--manage-certs needs --namespace'],
    [['--manage-certs', '--namespace', 'Team_A'], '--namespace must be'],
    [['--manage-certs', '--namespace', 'a', '--name', '9lives'], '--name "9lives" must be'],
    [
      ['--manage-certs', '--namespace', 'a', '--ca-overlap', '5'],
      '--ca-overlap must be a positive duration with a unit',
    ],
    [
      ['--manage-certs', '--namespace', 'a', '--serving-validity', '400d', '--ca-validity', '365d'],
      '--serving-validity must be shorter than --ca-validity',
    ],
    [
      ['--manage-certs', '--namespace', 'a', '--kubeconfig', 'no-such-kubeconfig'],
      'cannot load the kubeconfig no-such-kubeconfig',
    ],
    [
      ['--manage-certs', '--namespace', 'a', '--cert-ip', '127.0.0.1,localhost'],
      '--cert-dns/--cert-ip: IP address "localhost" is not a valid IPv4 or IPv6 address',
    ],
    [
      ['--manage-certs', '--namespace', 'a', '--cert-dns', 'under_score.example'],
      'DNS name "under_score.example" is not a valid host name',
    ],
    [['--manage-certs', '--namespace', 'a', '--lease-duration', '1s'], '--lease-duration must be at least 2s'],
    [['--manage-certs', '--namespace', 'a', '--cert-dir', 'certs'], '--cert-dir does not apply with --manage-certs'],
  ])('%j', async (flags, message) => {
    const previous = process.env.POD_NAMESPACE;
    delete process.env.POD_NAMESPACE;
    try {
      const result = await run('serve', '--port', '0', ...flags);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(message);
      await expect(access(join(dir, 'certs'))).rejects.toThrow();
    } finally {
      if (previous !== undefined) process.env.POD_NAMESPACE = previous;
    }
  });
});

describe('crdgate serve with a contract whose hub has a scale subresource: the kubeconfig it reads /scale objects with', () => {
  const scalable = fileURLToPath(new URL('./admission/scalable-geodatabase.fixture.ts', import.meta.url));

  it('takes --kubeconfig and --context only then (or with --manage-certs)', async () => {
    const result = await run('serve', '--port', '0', '--kubeconfig', 'kubeconfig', '--cert-dir', 'never-written');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "crdgate serve: --kubeconfig only apply with --manage-certs, --crd-gate, a contract whose hub has a scale subresource, or one whose CRD someone else owns (crdOwner: 'external')",
    );
  });

  it('exits 2 when the kubeconfig named cannot be loaded, before anything is bound or written', async () => {
    const result = await run(
      'serve',
      '--port',
      '0',
      '--contract',
      scalable,
      '--kubeconfig',
      'no-such-kubeconfig',
      '--cert-dir',
      'never-written',
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('cannot load the kubeconfig no-such-kubeconfig');
    await expect(access(join(dir, 'never-written'))).rejects.toThrow();
  });
});

describe('crdgate serve --crd-gate: its flags, checked before anything is bound or written', () => {
  it.each([
    [
      ['--crd-gate-max-objects', '10'],
      '--crd-gate-max-objects, --crd-gate-read-timeout and --crd-rules only apply with --crd-gate',
    ],
    [
      ['--crd-rules', 'rules.yaml'],
      '--crd-gate-max-objects, --crd-gate-read-timeout and --crd-rules only apply with --crd-gate',
    ],
    [
      ['--crd-gate', '--crd-gate-read-timeout', '15s'],
      "--crd-gate-read-timeout must be below the gate webhook's timeoutSeconds (15s)",
    ],
    [['--crd-gate', '--crd-gate-max-objects', '0'], '--crd-gate-max-objects must be'],
  ])('refuses %j', async (flags, message) => {
    const result = await run('serve', '--port', '0', ...flags, '--cert-dir', 'never-written');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toContain(`crdgate serve: ${message}`);
    await expect(access(join(dir, 'never-written'))).rejects.toThrow();
  });

  it('takes --kubeconfig, and exits 2 when the one named cannot be loaded', async () => {
    const result = await run(
      'serve',
      '--port',
      '0',
      '--crd-gate',
      '--kubeconfig',
      'no-such-kubeconfig',
      '--cert-dir',
      'never-written',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot load the kubeconfig no-such-kubeconfig');
  });
});

describe('crdgate serve with a contract whose CRD someone else owns: --owner-schema', () => {
  const writeOperatorContract = async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.ops.example.com' },
      spec: {
        group: 'ops.example.com',
        scope: 'Namespaced',
        names: { kind: 'Pool', plural: 'pools', singular: 'pool', listKind: 'PoolList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    await writeFile(join(dir, 'pools.json'), JSON.stringify(crd));
    const crdgate = JSON.stringify(new URL('./index.ts', import.meta.url).href);
    await writeFile(
      join(dir, 'pool-contract.ts'),
      `import { defineContract, fromCrd, readCrdFile } from ${crdgate};\n` +
        `export default () => defineContract({ ...fromCrd(readCrdFile(new URL('./pools.json', import.meta.url)), { crdOwner: 'external' }) });\n`,
    );
  };

  it.each([
    [[], "--owner-schema only applies to a contract whose CRD someone else owns (crdOwner: 'external')"],
    [['--contract', 'pool-contract.ts'], '--owner-schema takes contract or live, got "newest"'],
  ])('refuses %j before anything is bound or written', async (flags, message) => {
    await writeOperatorContract();
    const value = flags.length === 0 ? 'live' : 'newest';
    const result = await run('serve', '--port', '0', ...flags, '--owner-schema', value, '--cert-dir', 'never-written');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`crdgate serve: ${message}`);
    await expect(access(join(dir, 'never-written'))).rejects.toThrow();
  });

  it('takes --kubeconfig for following the CRD, and exits 2 when the one named cannot be loaded', async () => {
    await writeOperatorContract();
    const result = await run(
      'serve',
      '--port',
      '0',
      '--contract',
      'pool-contract.ts',
      '--kubeconfig',
      'no-such-kubeconfig',
      '--cert-dir',
      'never-written',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot load the kubeconfig no-such-kubeconfig');
  });

  it('serves on while a default kubeconfig does not load, and logs why it cannot follow the CRD in one entry, with no stack', async () => {
    await writeOperatorContract();
    const bin = fileURLToPath(new URL('./bin.ts', import.meta.url));
    const args = [
      bin,
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--contract',
      'pool-contract.ts',
      '--cert-dir',
      'follow-certs',
    ];
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: { ...process.env, KUBECONFIG: join(dir, 'not-written-yet') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const entry = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log entry within 20 s:\n${log}`)), 20_000);
        child.stdout.on('data', () => {
          const found = log
            .split('\n')
            .filter((line) => line.startsWith('{'))
            .map((line) => JSON.parse(line) as Record<string, unknown>)
            .find((logged) => String(logged['msg']).startsWith("cannot follow the owner's CRD"));
          if (!found) return;
          clearTimeout(timer);
          resolve(found);
        });
      });
      expect(entry).toMatchObject({ level: 40, reason: expect.stringContaining(`cannot load the kubeconfig: ENOENT`) });
      expect(entry).not.toHaveProperty('err');
      expect(log).not.toContain('"stack"');
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});

describe('crdgate --help', () => {
  it('loads each command under its own name', async () => {
    for (const [name, load] of Object.entries(commandLoaders)) expect((await load()).name).toBe(name);
  });

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
  const defineContractUrl = new URL('./contract/define-contract.ts', import.meta.url).href;
  const widgetContract = (
    defineContractFrom: string,
  ) => `import { defineContract } from ${JSON.stringify(defineContractFrom)};
export default () => defineContract({
  identity: { group: 'toys.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 3 } } } } } }],
  conversions: {},
});
`;
  const widget = (size: number) => ({
    apiVersion: 'toys.example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    spec: { size },
  });

  beforeAll(async () => {
    await writeFile(join(dir, 'widget-contract.ts'), widgetContract(defineContractUrl));
    await writeFile(join(dir, 'small.yaml'), stringify(widget(2)));
    await writeFile(join(dir, 'big.yaml'), stringify(widget(9)));
    await writeFile(join(dir, 'geodatabase.yaml'), stringify(geoDatabase(validSpec)));
  });

  it("serves a contract of the user's, and refuses a module that is not one", async () => {
    expect((await run('check', '-f', 'small.yaml', '--contract', 'widget-contract.ts')).code).toBe(0);
    const big = await run('check', '-f', 'big.yaml', '--contract', 'widget-contract.ts');
    expect(big.code).toBe(1);
    expect(big.stdout).toContain('spec.size');
    // Without the module, crdgate knows no Widget: it is skipped, the summary says so, and a note says how to have
    // it decided (a run that forgot --contract passes, so it must not pass in silence).
    const forgotten = await run('check', '-f', 'small.yaml');
    expect(forgotten.code).toBe(0);
    expect(forgotten.stdout).toMatch(
      /^checked 0 objects: .*skipped 1 of kinds no contract declares \(Widget\.toys\.example\.com 1\)/m,
    );
    expect(forgotten.stderr).toBe(
      'note: custom resources were not decided (Widget.toys.example.com 1): give their CRD with --crd, or the contract that guards them with --contract\n',
    );

    await writeFile(
      join(dir, 'broken-contract.ts'),
      widgetContract(defineContractUrl).replace('storage: true', 'storage: false'),
    );
    const broken = await run('check', '-f', 'small.yaml', '--contract', 'broken-contract.ts');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('exactly one version must be the storage version');

    await writeFile(join(dir, 'not-a-contract.mjs'), 'export default { hello: "world" };\n');
    const refused = await run('check', '-f', 'small.yaml', '--contract', 'not-a-contract.mjs');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not-a-contract.mjs');
  });

  it('leaves the built-in GeoDatabase out of check, fsa and manifests', async () => {
    const check = await run('check', '-f', 'geodatabase.yaml', '--contract', 'widget-contract.ts');
    expect(check.stdout).toContain('skipped 1 of kinds no contract declares (GeoDatabase.geo.example.com 1)');
    const strict = await run(
      'check',
      '-f',
      'geodatabase.yaml',
      '-f',
      'small.yaml',
      '--contract',
      'widget-contract.ts',
      '--strict-kinds',
    );
    expect(strict.code).toBe(0);
    expect(strict.stdout).toContain('skipped 1 of kinds no contract declares (GeoDatabase.geo.example.com 1)');

    const fsa = await run('fsa', '--contract', 'widget-contract.ts');
    expect(fsa).toMatchObject({ code: 2, stderr: expect.stringContaining('no contract has an FSA') });
    expect((await run('fsa', '--kind', 'GeoDatabase', '--contract', 'widget-contract.ts')).code).toBe(2);

    const manifests = await run(
      'manifests',
      '--contract',
      'widget-contract.ts',
      '--image',
      'registry.example.com/widgets:1',
    );
    expect(manifests.code, manifests.stderr).toBe(0);
    const objects = parseAllDocuments(manifests.stdout).map((d) => d.toJS());
    expect(manifests.stdout).not.toMatch(/geodatabase|geo\.example\.com/i);
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual([
      'widgets.toys.example.com',
    ]);
    const webhookRules = objects
      .filter((o) => o.kind.endsWith('WebhookConfiguration'))
      .flatMap((o) => o.webhooks.flatMap((w: any) => w.rules));
    expect(webhookRules.flatMap((r: any) => r.resources)).toEqual(expect.arrayContaining(['widgets']));
    expect(webhookRules.flatMap((r: any) => r.apiGroups).every((g: string) => g === 'toys.example.com')).toBe(true);
  });

  it('renders the Deployment running the same contracts on the given image, and the migration Job on that image', async () => {
    const result = await run(
      'manifests',
      '--contract',
      join(dir, 'widget-contract.ts'),
      '--image',
      'registry.example.com/widgets:1',
    );
    expect(result.code, result.stderr).toBe(0);
    const objects = parseAllDocuments(result.stdout).map((d) => d.toJS());
    const containerOf = (kind: string) => objects.find((o) => o.kind === kind).spec.template.spec.containers[0];
    // An absolute path becomes one relative to the working directory, which the image's working directory mirrors.
    expect(containerOf('Deployment')).toMatchObject({
      image: 'registry.example.com/widgets:1',
      args: ['serve', '--cert-dir', '/etc/crdgate/certs', '--contract', './widget-contract.ts'],
    });
    expect(containerOf('Job')).toMatchObject({
      image: 'registry.example.com/widgets:1',
      args: ['migrate', '--resource', 'widgets.toys.example.com'],
    });

    const withoutImage = await run('manifests', '--contract', 'widget-contract.ts');
    expect(withoutImage.code).toBe(2);
    expect(withoutImage.stderr).toContain('--contract needs --image');
  });

  it('takes a package specifier, resolved from the working directory', async () => {
    const pkg = join(dir, 'node_modules', '@acme', 'widget-contracts');
    await mkdir(pkg, { recursive: true });
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({ name: '@acme/widget-contracts', type: 'module', exports: { './widget': './widget.ts' } }),
    );
    // Type stripping does not reach into node_modules: a published contract ships JavaScript.
    await writeFile(join(pkg, 'widget.ts'), widgetContract(defineContractUrl));
    await writeFile(join(pkg, 'widget.mjs'), widgetContract(defineContractUrl));
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({ name: '@acme/widget-contracts', type: 'module', exports: { './widget': './widget.mjs' } }),
    );
    const big = await run('check', '-f', 'big.yaml', '--contract', '@acme/widget-contracts/widget');
    expect(big.code, big.stderr).toBe(1);
    expect(big.stdout).toContain('spec.size');
    const manifests = await run('manifests', '--contract', '@acme/widget-contracts/widget', '--image', 'widgets:1');
    expect(manifests.stdout).toContain('- "@acme/widget-contracts/widget"');

    for (const missing of ['@acme/nothing-here', './nothing-here.ts']) {
      const result = await run('check', '-f', 'big.yaml', '--contract', missing);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--contract ${missing}: no such file`);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('reports a broken contract in one line when it was defined with another copy of crdgate', async () => {
    // A user's contract imports its own crdgate (installed from a folder, say) while the CLI is another copy: the
    // query string makes the module load a second time, with classes of its own.
    await writeFile(
      join(dir, 'other-copy-contract.ts'),
      widgetContract(`${defineContractUrl}?another-copy`).replace('storage: true', 'storage: false'),
    );
    const broken = await run('check', '-f', 'small.yaml', '--contract', 'other-copy-contract.ts');
    expect(broken.code).toBe(2);
    expect(broken.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('exactly one version must be the storage version'),
    ]);
  });
});
