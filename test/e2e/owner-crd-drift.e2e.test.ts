import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createCertificateAuthority, issueCertificate } from '../../src/certs/pki.ts';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { findFreePort } from '../../src/control-plane/free-port.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { startCrdgateReplica, type CrdgateReplica } from './support/crdgate-replica.ts';
import { dbClusterTwoVersionCrd, operatorCrdFile, type OwnerConversion } from './support/db-operator-contracts.ts';
import { metricSum } from './support/api-server-metrics.ts';
import { kubectl, type KubectlResult } from './support/kubectl.ts';
import { writeServiceAccountKubeconfig } from './support/service-account-kubeconfig.ts';

// crdgate in step with an operator whose CRD it does not own, through the real API server: the operator's CRD with
// two versions and its own conversion webhook (a stand-in HTTPS server of the operator's, converting v1beta1's
// spec.replicas to v1's spec.instances), crdgate's webhooks-only install in front of it (rendered by `crdgate
// manifests`, served by `crdgate serve` as a process with the rendered RBAC's ServiceAccount), refusals through kubectl
// in the version only the owner converts, the group's other kinds untouched, and the owner's next release adding a
// field: reported as drift (log line and /metrics), denied as unknown with the contract's schema and admitted with
// --owner-schema live. The phase tables themselves are operator-owned-crd.e2e.test.ts's subject.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const crdName = 'dbclusters.dbops.example.com';
const contractModules = ['db-cluster-two-versions.ts', 'db-pooler.ts'].map((file) =>
  fileURLToPath(new URL(`./support/contracts/${file}`, import.meta.url)),
);

/** The operator's conversion webhook: renames between v1beta1's spec.replicas and v1's spec.instances, keeps the rest. */
function convert(object: Record<string, any>, desiredAPIVersion: string): Record<string, any> {
  const converted = structuredClone(object);
  converted['apiVersion'] = desiredAPIVersion;
  const spec = converted['spec'] ?? {};
  if (desiredAPIVersion.endsWith('/v1') && 'replicas' in spec) {
    spec.instances = spec.replicas;
    delete spec.replicas;
  } else if (desiredAPIVersion.endsWith('/v1beta1') && 'instances' in spec) {
    spec.replicas = spec.instances;
    delete spec.instances;
  }
  return converted;
}

function startOwnerConversionServer(cert: {
  certPem: string;
  keyPem: string;
}): Promise<{ server: Server; port: number; conversions: () => number }> {
  let conversions = 0;
  const server = createServer({ cert: cert.certPem, key: cert.keyPem, minVersion: 'TLSv1.2' }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        request: { uid: string; desiredAPIVersion: string; objects: Record<string, any>[] };
      };
      conversions += review.request.objects.length;
      const response = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response: {
          uid: review.request.uid,
          convertedObjects: review.request.objects.map((o) => convert(o, review.request.desiredAPIVersion)),
          result: { status: 'Success' },
        },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port, conversions: () => conversions }),
    ),
  );
}

describe.skipIf(!controlPlane)(
  "crdgate in step with an operator's CRD it does not own, through the real API server",
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const id = randomUUID().slice(0, 8);
    const installName = `drift-${id}`;
    const namespace = `crdgate-e2e-drift-${id}`;
    let workDir: string;
    let certDir: string;
    let conversion: OwnerConversion;
    let owner: Awaited<ReturnType<typeof startOwnerConversionServer>> | undefined;
    let crdgatePort: number;
    let serviceAccountKubeconfig: string;
    let gate: CrdgateReplica | undefined;
    let tree: string;

    let written = 0;
    /** kubectl as the admin; `stdin` is written to a file that stands for `-f -`. */
    const asAdmin = async (args: string[], stdin?: string) => {
      if (stdin === undefined) return kubectl(cp, args);
      const file = join(workDir, `manifest-${++written}.json`);
      await writeFile(file, stdin);
      return kubectl(
        cp,
        args.map((arg, index) => (arg === '-' && args[index - 1] === '-f' ? file : arg)),
      );
    };
    const succeeded = (result: KubectlResult): string => {
      expect(result.exitCode, result.stderr).toBe(0);
      return result.stdout;
    };
    const applyAsOwner = async (crd: unknown) =>
      succeeded(
        await asAdmin(
          ['apply', '--server-side', '--force-conflicts', '--field-manager=dbops-chart', '-f', '-'],
          JSON.stringify(crd),
        ),
      );
    const status = (kind: string, name: string, value: object) =>
      asAdmin([
        'patch',
        kind,
        name,
        '-n',
        namespace,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: value }),
      ]);
    const patch = (kind: string, name: string, spec: object) =>
      asAdmin(['patch', kind, name, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec })]);
    const metric = async (name: string, labels: Record<string, string>) =>
      metricSum(await gate!.metrics(), name, labels);

    const startGate = async (
      identity: string,
      extra: string[] = [],
      kubeconfig = serviceAccountKubeconfig,
    ): Promise<CrdgateReplica> => {
      const args = [
        '--host',
        '127.0.0.1',
        '--port',
        String(crdgatePort),
        '--cert-dir',
        certDir,
        '--kubeconfig',
        kubeconfig,
        '--drain-delay',
        '0',
        '--log-level',
        'debug',
      ];
      return startCrdgateReplica(
        identity,
        [...args, ...contractModules.flatMap((module) => ['--contract', module]), ...extra],
        workDir,
      );
    };
    /** Until the API server calls this crdgate for DbClusters: a dry-run write it logs (dry runs persist nothing). */
    const calledByApiServer = (replica: CrdgateReplica) =>
      eventually(`the API server to call ${replica.identity}`, async () => {
        await asAdmin([
          'patch',
          'dbcluster',
          'orders',
          '-n',
          namespace,
          '--dry-run=server',
          '--type=merge',
          '-p',
          '{"metadata":{"labels":{"probe":"1"}}}',
        ]);
        return (await replica.logLines()).some((line) => line['path'] === '/validate' && line['dryRun'] === true)
          ? true
          : undefined;
      });

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-drift-'));
      certDir = join(workDir, 'certs');
      tree = join(workDir, 'deploy');
      await mkdir(certDir);
      // One CA for both webhook servers on 127.0.0.1: the operator's conversion webhook and crdgate's.
      const ca = createCertificateAuthority({ commonName: 'e2e drift CA', days: 1 });
      const serving = () =>
        issueCertificate(ca, { commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], days: 1, usage: 'server' });
      const crdgateCert = serving();
      await writeFile(join(certDir, 'tls.crt'), crdgateCert.certPem);
      await writeFile(join(certDir, 'tls.key'), crdgateCert.keyPem);
      await writeFile(join(workDir, 'ca.crt'), ca.certPem);
      owner = await startOwnerConversionServer(serving());
      conversion = { url: `https://127.0.0.1:${owner.port}/convert`, caBundlePem: ca.certPem };
      crdgatePort = await findFreePort();

      // The operator's chart: its CRDs, its own conversion webhook in DbCluster's.
      const others = parseAllDocuments(await readFile(operatorCrdFile, 'utf8'))
        .map((doc) => doc.toJS())
        .filter((crd) => crd.metadata.name !== crdName);
      for (const crd of [dbClusterTwoVersionCrd(conversion), ...others]) await applyAsOwner(crd);
      for (const name of [crdName, 'dbpoolers.dbops.example.com', 'dbbackups.dbops.example.com']) {
        succeeded(await asAdmin(['wait', '--for=condition=Established', `crd/${name}`, '--timeout=30s']));
      }
      succeeded(await asAdmin(['create', 'namespace', namespace]));

      // crdgate's install, called by URL: webhooks and the RBAC of its ServiceAccount (made here: by URL, the server is not in the cluster).
      const modules = contractModules.flatMap((module) => ['--contract', module]);
      const rendered = await runCli(
        workDir,
        'manifests',
        ...modules,
        '--url',
        `https://127.0.0.1:${crdgatePort}`,
        '--ca-bundle',
        join(workDir, 'ca.crt'),
        '--name',
        installName,
        '--namespace',
        namespace,
        '--out',
        tree,
      );
      expect(rendered.code, rendered.stderr).toBe(0);
      succeeded(await asAdmin(['create', 'serviceaccount', installName, '-n', namespace]));
      succeeded(await asAdmin(['apply', '-k', join(tree, 'base')]));
      serviceAccountKubeconfig = join(workDir, 'service-account.kubeconfig');
      await writeServiceAccountKubeconfig(cp, namespace, installName, serviceAccountKubeconfig);

      gate = await startGate('contract-schema');
      // An object in the version only the operator converts, before the webhooks judge anything.
      const created = await asAdmin(
        ['apply', '-n', namespace, '-f', '-'],
        JSON.stringify({
          apiVersion: 'dbops.example.com/v1beta1',
          kind: 'DbCluster',
          metadata: { name: 'orders' },
          spec: { replicas: 3, imageName: 'registry.example/pg:16.4', storage: { size: '10Gi' } },
        }),
      );
      succeeded(created);
      await calledByApiServer(gate);
    });

    afterAll(async () => {
      // Webhooks first, so that nothing is sent to a stopped crdgate; the CRDs go with the owner's server.
      if (tree) await asAdmin(['delete', '-k', join(tree, 'base'), '--ignore-not-found']);
      await asAdmin([
        'delete',
        'crd',
        crdName,
        'dbpoolers.dbops.example.com',
        'dbbackups.dbops.example.com',
        '--ignore-not-found',
        '--wait=false',
      ]);
      await gate?.stop();
      await new Promise((resolve) => (owner ? owner.server.close(resolve) : resolve(undefined)));
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    it("keeps the operator's CRD as its owner applied it: its conversion webhook converts, crdgate's webhooks are for v1 only", async () => {
      const crd = JSON.parse(succeeded(await asAdmin(['get', 'crd', crdName, '-o', 'json'])));
      expect(crd.spec.conversion).toMatchObject({
        strategy: 'Webhook',
        webhook: { clientConfig: { url: conversion.url } },
      });
      const stored = JSON.parse(
        succeeded(await asAdmin(['get', 'dbclusters.v1.dbops.example.com', 'orders', '-n', namespace, '-o', 'json'])),
      );
      expect(stored.spec).toEqual({ instances: 3, imageName: 'registry.example/pg:16.4', storage: { size: '10Gi' } });
      expect(owner!.conversions()).toBeGreaterThan(0);
      const webhooks = JSON.parse(
        succeeded(await asAdmin(['get', 'validatingwebhookconfiguration', installName, '-o', 'json'])),
      ).webhooks;
      expect(webhooks.length).toBeGreaterThan(0);
      for (const webhook of webhooks)
        expect(
          [webhook.matchPolicy, ...webhook.rules.map((rule: any) => rule.apiVersions)].every(
            (v: unknown) => JSON.stringify(v) === '["v1"]' || v === 'Equivalent',
          ),
        ).toBe(true);
    });

    it('refuses through kubectl in the version the owner converts: patch, apply and scale, the state read from phase sentences', async () => {
      for (const phase of ['Setting up primary', 'Cluster in healthy state'])
        expect(await status('dbcluster', 'orders', { phase })).toMatchObject({ exitCode: 0 });
      const shrink = await asAdmin([
        'patch',
        'dbclusters.v1beta1.dbops.example.com',
        'orders',
        '-n',
        namespace,
        '--type=merge',
        '-p',
        '{"spec":{"storage":{"size":"5Gi"}}}',
      ]);
      expect(shrink.exitCode).not.toBe(0);
      expect(shrink.stderr).toContain(
        'spec.storage.size: shrinking storage from 10Gi to 5Gi is unsupported: a volume cannot shrink',
      );
      const applied = await asAdmin(
        ['apply', '-n', namespace, '-f', '-'],
        JSON.stringify({
          apiVersion: 'dbops.example.com/v1beta1',
          kind: 'DbCluster',
          metadata: { name: 'orders' },
          spec: { replicas: 3, imageName: 'registry.example/pg:17.0', storage: { size: '10Gi' } },
        }),
      );
      expect(applied.exitCode).not.toBe(0);
      expect(applied.stderr).toContain(
        'a major upgrade from registry.example/pg:16.4 to registry.example/pg:17.0 is unsupported',
      );
      expect(await status('dbcluster', 'orders', { phase: 'Upgrading cluster' })).toMatchObject({ exitCode: 0 });
      const scaled = await asAdmin([
        'scale',
        'dbclusters.v1beta1.dbops.example.com',
        'orders',
        '-n',
        namespace,
        '--replicas=5',
      ]);
      expect(scaled.exitCode).not.toBe(0);
      expect(scaled.stderr).toContain(
        'changing instances from 3 to 5 is not allowed while the cluster is Upgrading (allowed in: Ready, Scaling)',
      );
      expect(await status('dbcluster', 'orders', { phase: 'Cluster in healthy state' })).toMatchObject({ exitCode: 0 });
    });

    it("reads a pooler's state from its conditions, and leaves the group's other kinds alone", async () => {
      succeeded(
        await asAdmin(
          ['apply', '-n', namespace, '-f', '-'],
          JSON.stringify({
            apiVersion: 'dbops.example.com/v1',
            kind: 'DbPooler',
            metadata: { name: 'rw' },
            spec: { instances: 2, mode: 'session' },
          }),
        ),
      );
      expect(
        await status('dbpooler', 'rw', { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'False' }] }),
      ).toMatchObject({ exitCode: 0 });
      const mid = await patch('dbpooler', 'rw', { instances: 4 });
      expect(mid.stderr).toContain(
        'changing instances from 2 to 4 is not allowed while the pooler is Reconfiguring (allowed in: Ready)',
      );
      succeeded(
        await asAdmin(
          ['apply', '-n', namespace, '-f', '-'],
          JSON.stringify({
            apiVersion: 'dbops.example.com/v1',
            kind: 'DbBackup',
            metadata: { name: 'nightly' },
            spec: { cluster: 'orders' },
          }),
        ),
      );
      expect((await gate!.logLines()).filter((line) => line['object'] === `${namespace}/nightly`)).toEqual([]);
    });

    it("follows the owner's CRD with RBAC by name only: in step, then a warning and crdgate_owner_crd_drift when a release adds a field", async () => {
      await eventually('the CRD to be followed and in step', async () =>
        (await metric('crdgate_owner_crd_watch_up', { crd: crdName })) === 1 ? true : undefined,
      );
      for (const version of ['v1', 'v1beta1'])
        expect(await metric('crdgate_owner_crd_drift', { crd: crdName, version })).toBe(0);
      // In step: the API server validated every write so far with the very schema the contract holds, and crdgate
      // left it that (the machine judged them all, refusing the tests' changes above): no validator compiled.
      expect(await metric('crdgate_schema_validators_compiled', { crd: crdName })).toBe(0);
      // By name only: the ServiceAccount crdgate runs as cannot list the cluster's CRDs.
      const listAll = await kubectl({ ...cp, kubeconfigPath: serviceAccountKubeconfig }, ['get', 'crd']);
      expect(listAll.stderr).toContain('cannot list resource "customresourcedefinitions"');

      await applyAsOwner(
        dbClusterTwoVersionCrd(conversion, {
          backup: { type: 'object', properties: { schedule: { type: 'string' } } },
        }),
      );
      await eventually('the drift to show in /metrics', async () =>
        (await metric('crdgate_owner_crd_drift', { crd: crdName, version: 'v1' })) === 1 ? true : undefined,
      );
      expect(await metric('crdgate_owner_crd_drift', { crd: crdName, version: 'v1beta1' })).toBe(1);
      expect(await metric('crdgate_owner_crd_drift_paths', { crd: crdName, version: 'v1' })).toBe(1);
      const warnings = (await gate!.logLines()).filter(
        (line) => line['msg'] === "the owner's CRD differs from the contract's copy",
      );
      expect(
        warnings.map((line) => [line['level'], line['crd'], line['version'], line['differences'], line['schemaInUse']]),
      ).toEqual([
        [40, crdName, 'v1beta1', ['spec.backup (added)'], 'contract'],
        [40, crdName, 'v1', ['spec.backup (added)'], 'contract'],
      ]);
    });

    it('denies the new field as unknown with the contract’s schema', async () => {
      const ordersDenials = async () =>
        (await gate!.logLines()).filter(
          (line) =>
            line['path'] === '/validate' && line['object'] === `${namespace}/orders` && line['decision'] === 'denied',
        );
      const deniedBefore = (await ordersDenials()).length;
      const withBackup = await patch('dbcluster', 'orders', { backup: { schedule: '0 3 * * *' } });
      expect(withBackup.exitCode).not.toBe(0);
      expect(withBackup.stderr.trim()).toBe('The DbCluster "orders" is invalid: spec.backup: unknown field "backup"');
      // crdgate's words, not the API server's: the API server's schema has the field now. The log line may reach
      // the file after kubectl has its answer, so wait for this denial's line rather than read an earlier one.
      const denials = await eventually('the denial to be logged', async () => {
        const lines = await ordersDenials();
        return lines.length > deniedBefore ? lines : undefined;
      });
      expect(denials.at(-1)).toMatchObject({ code: 'OBJECT_INVALID', operation: 'UPDATE' });
      // Drifted: the copy's schema is crdgate's own rule again, compiled for the version the patch was written in.
      expect(await metric('crdgate_schema_validators_compiled', { crd: crdName })).toBe(1);
      expect(
        await asAdmin([
          'patch',
          'dbcluster',
          'orders',
          '-n',
          namespace,
          '--dry-run=server',
          '--type=merge',
          '-p',
          '{"spec":{"backup":{"schedule":7}}}',
        ]),
      ).toMatchObject({
        // The API server's own refusal, before any webhook: the new field is in its schema.
        stderr: expect.stringMatching(/spec\.backup\.schedule: Invalid value: .*must be of type string/),
      });
    });

    it('with --owner-schema live admits it, and follows the next change of the CRD too', async () => {
      await gate!.stop();
      gate = await startGate('live-schema', ['--owner-schema', 'live']);
      await eventually('the live-schema crdgate to be ready', async () =>
        (await gate!.readyz()) === 200 ? true : undefined,
      );
      await calledByApiServer(gate);
      expect(await metric('crdgate_owner_crd_live_schema', { crd: crdName, version: 'v1' })).toBe(1);
      expect(await patch('dbcluster', 'orders', { backup: { schedule: '0 3 * * *' } })).toMatchObject({ exitCode: 0 });

      await applyAsOwner(
        dbClusterTwoVersionCrd(conversion, {
          backup: { type: 'object', properties: { schedule: { type: 'string' } } },
          tier: { type: 'string' },
        }),
      );
      await eventually('the next release to be validated with', async () =>
        (await patch('dbcluster', 'orders', { tier: 'gold' })).exitCode === 0 ? true : undefined,
      );
      // Still judged: the machine refuses what it refused with the contract's schema.
      const shrink = await patch('dbcluster', 'orders', { storage: { size: '5Gi' } });
      expect(shrink.stderr).toContain('shrinking storage from 10Gi to 5Gi is unsupported');
    });

    it('without RBAC: keeps serving and ready with the contract’s schema, says why; with --owner-schema live, not ready', async () => {
      const stranger = join(workDir, 'stranger.kubeconfig');
      succeeded(await asAdmin(['create', 'serviceaccount', 'stranger', '-n', namespace]));
      await writeServiceAccountKubeconfig(cp, namespace, 'stranger', stranger);
      await gate!.stop();
      gate = await startGate('forbidden', [], stranger);
      await eventually('the forbidden watch to be reported', async () =>
        (await gate!.logLines()).some(
          (line) =>
            line['msg']?.toString().startsWith("cannot follow the owner's CRD: not allowed") && line['code'] === 403,
        )
          ? true
          : undefined,
      );
      expect(await gate.readyz()).toBe(200);
      expect(await metric('crdgate_owner_crd_watch_up', { crd: crdName })).toBe(0);
      await gate.stop();

      gate = await startGate('forbidden-live', ['--owner-schema', 'live'], stranger);
      const answer = await eventually('a reason to be given', async () => {
        const readyz = await gate!.readyzAnswer();
        return readyz.body.includes('forbidden') ? readyz : undefined;
      });
      expect(answer.status).toBe(503);
      expect(answer.body).toContain(`not ready: --owner-schema live: the owner's CRD ${crdName} has not been read yet`);
    });
  },
);
