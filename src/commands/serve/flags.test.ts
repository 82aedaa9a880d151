import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../../admission/scalable-geodatabase.fixture.ts';
import { defineContract } from '../../contract/define-contract.ts';
import { fromCrd, readCrdFile } from '../../contract/from-crd.ts';
import { createContractRegistry } from '../../contract/registry.ts';
import { geoDatabaseContract } from '../../contracts/geodatabase/index.ts';
import { CommandError } from '../../errors.ts';
import { serveCommand } from './serve.ts';
import { readServeFlags, servedHelpers, type ServeFlags } from './flags.ts';

// The flags as the CLI parses them, read without a registry, a file or a port: what each becomes, and the usage
// error a bad one is (the CLI tests run the same errors through the command).

const values = (...args: string[]) =>
  parseArgs({ args, options: serveCommand.options, strict: true, allowPositionals: false }).values;
const read = (args: string[], env: Record<string, string> = {}) =>
  readServeFlags(values(...args), '/work/project', env);

function usageError(run: () => unknown): CommandError {
  try {
    run();
  } catch (error) {
    if (error instanceof CommandError) return error;
    throw error;
  }
  throw new Error('no error was thrown');
}

describe('readServeFlags', () => {
  it('without flags: the port and folder of a development server, client certificates asked on admission only', () => {
    const flags = read([]);
    expect(flags).toMatchObject({ port: 8443, host: '0.0.0.0', certDir: '/work/project/certs' });
    // The CRD gate is an admission webhook: kube-apiserver presents its client certificate there too.
    expect(flags.clientCaEndpoints).toEqual(['validate', 'mutate', 'crd-gate']);
    expect(flags).toMatchObject({ contracts: [], kube: {}, certFlagsGiven: [] });
    for (const absent of ['clientCaFile', 'manageCerts', 'ownerSchema', 'crdGate']) {
      expect(flags).not.toHaveProperty(absent);
    }
  });

  it('resolves files against the working directory and takes the limits, the drain delay and the contracts', () => {
    const flags = read([
      ...['--port', '0', '--cert-dir', 'tls', '--client-ca', '../ca.crt', '--client-ca-endpoints', '/validate,convert'],
      ...['--admission-body-limit', '1024', '--conversion-body-limit', '2048', '--drain-delay', '0'],
      ...['--contract', 'a.ts', '--contract', 'b.ts', '--log-level', 'debug', '--kubeconfig', 'kc', '--context', 'ctx'],
    ]);
    expect(flags).toMatchObject({
      port: 0,
      certDir: '/work/project/tls',
      clientCaFile: '/work/ca.crt',
      clientCaEndpoints: ['validate', 'convert'],
      limits: { admissionBytes: 1024, conversionBytes: 2048 },
      drainDelayMs: 0,
      contracts: ['a.ts', 'b.ts'],
      logLevel: 'debug',
      kube: { kubeconfig: 'kc', context: 'ctx' },
    });
  });

  it('takes an empty --client-ca for none', () => {
    expect(read(['--client-ca', ''])).not.toHaveProperty('clientCaFile');
  });

  it('with --manage-certs: the namespace from $POD_NAMESPACE, the service names and the given ones', () => {
    const names = ['--name', 'gate', '--cert-dns', 'gate.example.com, ', '--cert-ip', '10.0.0.1'];
    const flags = read(['--manage-certs', ...names, '--lease-duration', '30s'], { POD_NAMESPACE: 'ops' });
    expect(flags.manageCerts).toMatchObject({ name: 'gate', namespace: 'ops', leaseDurationMs: 30_000 });
    expect(flags.manageCerts?.policy).toMatchObject({ commonName: 'gate', ipAddresses: ['10.0.0.1'] });
    expect(flags.manageCerts?.policy.dnsNames).toEqual(expect.arrayContaining(['gate.ops.svc', 'gate.example.com']));
    expect(flags.manageCerts?.policy.servingValidityMs).toBeLessThan(flags.manageCerts!.policy.caValidityMs);
    const named = read(['--manage-certs', '--namespace', 'team-a'], { POD_NAMESPACE: 'ops' });
    expect(named.manageCerts?.namespace).toBe('team-a');
  });

  it('without --manage-certs: keeps the flags of it that were given, for the check against the contracts', () => {
    const flags = read(['--lease-duration', '30s', '--kubeconfig', 'kc']);
    expect(flags.certFlagsGiven).toEqual(['kubeconfig', 'lease-duration']);
  });

  it('with --crd-gate: its bounds and rules file', () => {
    expect(read(['--crd-gate']).crdGate).toEqual({ maxObjects: 5000, readTimeoutMs: 6000 });
    const bounds = ['--crd-gate-max-objects', '20', '--crd-gate-read-timeout', '3s'];
    const flags = read(['--crd-gate', ...bounds, '--crd-rules', 'rules.yaml']);
    expect(flags.crdGate).toEqual({ maxObjects: 20, readTimeoutMs: 3000, rulesFile: 'rules.yaml' });
  });

  it.each([
    [['--port', '70000'], '--port'],
    [['--client-ca-endpoints', 'validate,healthz'], '--client-ca-endpoints'],
    [['--log-level', 'bogus'], '--log-level'],
    [['--admission-body-limit', '0'], '--admission-body-limit'],
    [['--drain-delay', '1.5'], '--drain-delay'],
    [['--manage-certs'], '--namespace'],
    [['--manage-certs', '--namespace', 'Team_A'], '--namespace'],
    [['--manage-certs', '--namespace', 'a', '--cert-dir', 'certs'], '--cert-dir'],
    [['--manage-certs', '--namespace', 'a', '--ca-overlap', '5'], '--ca-overlap'],
    [['--manage-certs', '--namespace', 'a', '--serving-validity', '40d', '--ca-validity', '30d'], '--serving-validity'],
    [['--manage-certs', '--namespace', 'a', '--lease-duration', '1s'], '--lease-duration'],
    [['--owner-schema', 'newest'], '--owner-schema'],
    [['--crd-rules', 'rules.yaml'], '--crd-rules'],
    [['--crd-gate', '--crd-gate-max-objects', '0'], '--crd-gate-max-objects'],
    [['--crd-gate', '--crd-gate-read-timeout', '15s'], '--crd-gate-read-timeout'],
  ])('%j is a usage error naming %s', (args, flag) => {
    const error = usageError(() => read(args));
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain(flag);
  });
});

describe('servedHelpers: what the flags and the contracts call for', () => {
  const builtIn = createContractRegistry([geoDatabaseContract()]);
  const scalable = createContractRegistry([scalableGeoDatabaseContract()]);
  const fixture = new URL('../../../test/fixtures/crds/cert-manager-minimal.yaml', import.meta.url);
  const ownerCrd = readCrdFile(fixture, { name: 'issuers.cert-manager.io' });
  const external = createContractRegistry([defineContract({ ...fromCrd(ownerCrd, { crdOwner: 'external' }) })]);
  const helpersOf = (flags: ServeFlags, registry = builtIn) => servedHelpers(flags, registry);

  it('runs no helper for the built-in example without --manage-certs or --crd-gate', () => {
    expect(helpersOf(read([]))).toEqual({ readsStoredObjects: false, followsOwnerCrds: false, needsApiServer: false });
  });

  it('reaches the API server for --manage-certs, --crd-gate, a scale subresource and an owner CRD, each alone', () => {
    expect(helpersOf(read(['--manage-certs', '--namespace', 'a'])).needsApiServer).toBe(true);
    expect(helpersOf(read(['--crd-gate'])).needsApiServer).toBe(true);
    const scaled = helpersOf(read(['--kubeconfig', 'kc']), scalable);
    expect(scaled).toEqual({ readsStoredObjects: true, followsOwnerCrds: false, needsApiServer: true });
    const followed = helpersOf(read(['--context', 'ctx', '--owner-schema', 'live']), external);
    expect(followed).toEqual({ readsStoredObjects: false, followsOwnerCrds: true, needsApiServer: true });
  });

  it.each([
    [['--kubeconfig', 'kc'], ['--kubeconfig']],
    [
      ['--name', 'gate', '--context', 'ctx'],
      ['--name', '--context'],
    ],
    [['--owner-schema', 'live'], ['--owner-schema']],
    [['--manage-certs', '--namespace', 'a', '--name', '9lives'], ['--name']],
  ])('refuses %j with the built-in example, naming %j', (args, named) => {
    const error = usageError(() => helpersOf(read(args)));
    expect(error.code).toBe('USAGE');
    for (const flag of named) expect(error.message).toContain(flag);
  });

  it('refuses an install name too long for the objects named after it and the contracts', () => {
    const error = usageError(() => helpersOf(read(['--manage-certs', '--namespace', 'a', '--name', 'g'.repeat(60)])));
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain('--name');
  });
});
