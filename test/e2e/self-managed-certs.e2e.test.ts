import { randomUUID, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { installNames } from '../../src/render/in-cluster-names.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { startCrdgateReplica, sumOverReplicas, type CrdgateReplica } from './support/crdgate-replica.ts';
import { invalidGeoDatabase, validGeoDatabase } from './support/geodatabases.ts';
import { crdNotBeingDeleted, kubectl, type KubectlResult } from './support/kubectl.ts';
import { recordObjectHistory, type ObjectHistory } from './support/object-history.ts';
import { expectStatus, restClient, type Rest, type RestResponse } from './support/raw-api.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './support/round-robin-proxy.ts';
import { writeServiceAccountKubeconfig } from './support/service-account-kubeconfig.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const crdName = 'geodatabases.geo.example.com';
const validatingWebhook = `validate.${crdName}`;
const rotateAnnotation = 'crdgate.dev/rotate';
// Short, so that a CA rollover (two overlaps) and a takeover (one lease) cost seconds; the defaults are 5m and 15s.
const caOverlap = '3s';
const leaseDuration = '4s';

const pemCertificates = (pem: string): X509Certificate[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new X509Certificate(block),
  );
const fingerprints = (pem: string): string[] =>
  pemCertificates(pem)
    .map((ca) => ca.fingerprint256)
    .sort();
/** The CA of `bundle` that signed `certificate`, by signature and not by name alone. */
const signerIn = (certificate: X509Certificate, bundle: string): X509Certificate | undefined =>
  pemCertificates(bundle).find((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
const decode = (base64: string | undefined): string => Buffer.from(base64 ?? '', 'base64').toString('utf8');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CertificateSecret {
  caBundle: string;
  servingCertificate: string;
  nextCa: string;
  rotateRequest: string | undefined;
  resourceVersion: string;
}

function readCertificateSecret(secret: any): CertificateSecret {
  const data = (secret.data ?? {}) as Record<string, string>;
  return {
    caBundle: decode(data['ca.crt']),
    servingCertificate: decode(data['tls.crt']),
    nextCa: decode(data['next-ca.crt']),
    rotateRequest: secret.metadata.annotations?.[rotateAnnotation],
    resourceVersion: secret.metadata.resourceVersion,
  };
}

interface StreamedRequest {
  what: string;
  status: number;
  error?: string;
}

/**
 * Loops of writes and reads of GeoDatabases in v1beta1, which the CRD serves but does not store: each create and
 * patch goes through the conversion webhook both ways and through both admission webhooks, each read through the
 * conversion webhook. Any answer but a 2xx, or no answer, is a failed request.
 */
function streamThroughV1beta1(api: Rest, namespace: string, prefix: string, loops = 2) {
  const collection = `/apis/geo.example.com/v1beta1/namespaces/${namespace}/geodatabases`;
  const requests: StreamedRequest[] = [];
  let running = true;
  const send = async (
    what: string,
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<RestResponse | undefined> => {
    try {
      const response = await api.send(method, path, body, contentType);
      const failed = response.status < 200 || response.status > 299;
      requests.push({ what, status: response.status, ...(failed ? { error: response.text.slice(0, 400) } : {}) });
      return failed ? undefined : response;
    } catch (error) {
      requests.push({ what, status: 0, error: (error as Error).message });
      return undefined;
    }
  };
  const loop = async (index: number): Promise<void> => {
    for (let n = 0; running; n++) {
      const name = `${prefix}-${index}-${n}`;
      const created = await send(`create ${name}`, 'POST', collection, {
        apiVersion: 'geo.example.com/v1beta1',
        kind: 'GeoDatabase',
        metadata: { name, namespace },
        spec: {
          postgres: { version: '16.4', postgis: '3.4.2' },
          replicas: 0,
          storage: { size: '20Gi' },
          caches: [{ name: 'tiles', memory: '1Gi' }],
        },
      });
      if (!created) {
        await pause(100);
        continue;
      }
      await send(`read ${name}`, 'GET', `${collection}/${name}`);
      await send(
        `scale ${name}`,
        'PATCH',
        `${collection}/${name}`,
        { spec: { replicas: 1 } },
        'application/merge-patch+json',
      );
      await send(`read ${name} again`, 'GET', `${collection}/${name}`);
    }
  };
  const loops_ = Promise.all(Array.from({ length: loops }, (_, index) => loop(index)));
  return {
    requests,
    async stop(): Promise<StreamedRequest[]> {
      running = false;
      await loops_;
      return requests;
    },
  };
}

/**
 * `crdgate serve --manage-certs` as a user runs it with the self-managed-certs overlay: two replicas outside the API
 * server, behind one address (a TCP round-robin proxy standing for their Service), authenticated with a token of the
 * ServiceAccount the overlay renders, so that everything they do is allowed by the overlay's RBAC alone. Nobody makes
 * a certificate: the overlay ships the Secret and the Lease empty, the replicas fill them and every caBundle.
 * The tests run in order on one install: installed, rolled over, leader killed, caBundles blanked, readiness
 * watched while the leader is frozen, RBAC probed.
 */
describe.skipIf(!controlPlane)(
  'crdgate serve --manage-certs: two replicas keep their own CA and every caBundle, through the real API server',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const id = randomUUID().slice(0, 8);
    const installName = `selfcert-${id}`;
    const namespace = `crdgate-e2e-self-certs-${id}`;
    const names = installNames(installName);
    const secretPath = `/api/v1/namespaces/${namespace}/secrets/${names.servingCertSecret}`;
    const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${names.certLease}`;
    const geoDatabasesV1beta1 = `/apis/geo.example.com/v1beta1/namespaces/${namespace}/geodatabases`;
    const geoDatabasesV1 = `/apis/geo.example.com/v1/namespaces/${namespace}/geodatabases`;
    // Objects the ServiceAccount must not be able to touch, made by the admin for the RBAC test.
    const otherName = `${installName}-other`;

    let workDir: string | undefined;
    let tree: string;
    let overlay: string;
    let proxy: RoundRobinProxy | undefined;
    let admin: Rest;
    let serviceAccountKubeconfig: string;
    let serviceAccountName: string;
    let secretHistory: ObjectHistory | undefined;
    let replicaCount = 0;
    /** The replicas running now; a killed one leaves the list (and the proxy's backends), as its endpoint would. */
    const replicas: CrdgateReplica[] = [];
    const stopped: CrdgateReplica[] = [];

    const asAdmin = (args: string[]) => kubectl(cp, args);
    const asServiceAccount = (args: string[]) => kubectl({ ...cp, kubeconfigPath: serviceAccountKubeconfig }, args);
    const succeeded = (result: KubectlResult): string => {
      expect(result.exitCode, result.stderr).toBe(0);
      return result.stdout;
    };

    const startReplica = async (): Promise<CrdgateReplica> => {
      const identity = `replica-${++replicaCount}`;
      const replica = await startCrdgateReplica(
        identity,
        [
          '--manage-certs',
          '--name',
          installName,
          '--namespace',
          namespace,
          '--kubeconfig',
          serviceAccountKubeconfig,
          '--cert-ip',
          '127.0.0.1',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--ca-overlap',
          caOverlap,
          '--lease-duration',
          leaseDuration,
          '--drain-delay',
          '0',
        ],
        workDir!,
      );
      replicas.push(replica);
      proxy!.setBackends(replicas.map((running) => running.port));
      return replica;
    };
    const retire = (replica: CrdgateReplica) => {
      replicas.splice(replicas.indexOf(replica), 1);
      stopped.push(replica);
      proxy!.setBackends(replicas.map((running) => running.port));
    };
    const logsOnFailure = async () =>
      (
        await Promise.all(
          [...replicas, ...stopped].map(async (replica) => `--- ${replica.identity}\n${await replica.logTail()}`),
        )
      ).join('\n');

    const certificateSecret = async (): Promise<CertificateSecret> =>
      readCertificateSecret((await admin.send('GET', secretPath).then(expectStatus(200))).body);

    /** Every caBundle crdgate manages, by where it is, as the PEM the API server trusts there. */
    const caBundles = async (): Promise<Record<string, string>> => {
      const get = async (path: string): Promise<any> => (await admin.send('GET', path).then(expectStatus(200))).body;
      const [validating, mutating, crd] = await Promise.all([
        get(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${names.webhookConfiguration}`),
        get(`/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${names.webhookConfiguration}`),
        get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`),
      ]);
      return Object.fromEntries([
        ...validating.webhooks.map((webhook: any) => [
          `ValidatingWebhookConfiguration ${webhook.name}`,
          decode(webhook.clientConfig.caBundle),
        ]),
        ...mutating.webhooks.map((webhook: any) => [
          `MutatingWebhookConfiguration ${webhook.name}`,
          decode(webhook.clientConfig.caBundle),
        ]),
        [`CustomResourceDefinition ${crdName} conversion`, decode(crd.spec.conversion.webhook.clientConfig.caBundle)],
      ]);
    };
    /** Where a caBundle is not `pem`, or undefined when every one is. */
    const caBundlesNot = async (pem: string): Promise<string | undefined> => {
      const differing = Object.entries(await caBundles()).filter(([, bundle]) => bundle !== pem);
      return differing.length === 0
        ? undefined
        : `caBundles not the Secret's ca.crt: ${differing.map(([where, bundle]) => `${where} (${fingerprints(bundle).length} CAs)`).join(', ')}`;
    };
    const everyCaBundleIs = async (pem: string): Promise<boolean> => (await caBundlesNot(pem)) === undefined;

    /**
     * Which replica does not serve `certificate` (PEM), or is not ready, or not yet routed to; undefined when every one
     * serves it and receives connections.
     */
    const replicasNotServing = async (certificate: string): Promise<string | undefined> => {
      const expected = new X509Certificate(certificate).fingerprint256;
      const states = await Promise.all(
        replicas.map(async (replica) => {
          const served = (await replica.servingCertificate()).fingerprint256 === expected;
          const readyz = await replica.readyz();
          return served && readyz === 200
            ? undefined
            : `${replica.identity} (${served ? '' : 'serves another certificate, '}readyz ${readyz})`;
        }),
      );
      const behind = states.filter((state) => state !== undefined);
      if (behind.length > 0) return `not serving the Secret's certificate and ready: ${behind.join(', ')}`;
      // Ready is not yet routed to: the proxy, like a Service's endpoints, follows readiness a probe later.
      const unrouted = replicas.filter((replica) => !proxy!.routedBackends().includes(replica.port));
      return unrouted.length === 0
        ? undefined
        : `ready, not yet routed to: ${unrouted.map((replica) => replica.identity).join(', ')}`;
    };

    /** Waits until the install is settled: the Secret filled, every caBundle its ca.crt, every replica serving its pair. */
    const settled = (what: string, done: (secret: CertificateSecret) => boolean = () => true, timeoutMs = 60_000) =>
      eventually(
        what,
        async () => {
          const secret = await certificateSecret();
          if (secret.caBundle === '' || secret.servingCertificate === '')
            throw new Error('the Secret holds no certificates');
          if (secret.nextCa !== '') throw new Error('the Secret holds a next CA (a rollover is under way)');
          if (!done(secret))
            throw new Error(
              `the Secret is not there yet (rotate annotation: ${secret.rotateRequest ?? 'none'}, ${fingerprints(secret.caBundle).length} CAs)`,
            );
          const problem =
            (await caBundlesNot(secret.caBundle)) ?? (await replicasNotServing(secret.servingCertificate));
          if (problem !== undefined) throw new Error(problem);
          return secret;
        },
        { timeoutMs },
      ).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${await logsOnFailure()}`);
      });

    const leaderNow = async (): Promise<CrdgateReplica[]> => {
      const leading = await Promise.all(
        replicas.map(async (replica) => (await sumOverReplicas([replica], 'crdgate_certificate_leader')) === 1),
      );
      return replicas.filter((_, index) => leading[index]);
    };
    const leaseHolder = async (): Promise<string | undefined> =>
      ((await admin.send('GET', leasePath).then(expectStatus(200))).body as any).spec?.holderIdentity;
    const requestRotation = async (kind: 'ca' | 'serving') => {
      succeeded(
        await asAdmin([
          'annotate',
          'secret',
          names.servingCertSecret,
          '-n',
          namespace,
          `${rotateAnnotation}=${kind}`,
          '--overwrite',
        ]),
      );
    };
    const rotations = (kind: string, result = 'success') =>
      sumOverReplicas(replicas, 'crdgate_certificate_rotations_total', { kind, result });
    const repairs = (resource: string) => sumOverReplicas(replicas, 'crdgate_ca_bundle_repairs_total', { resource });

    beforeAll(async () => {
      admin = restClient(cp.kubeconfigPath);
      workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-self-certs-'));
      tree = join(workDir, 'deploy');
      overlay = join(tree, 'overlays', 'self-managed-certs');
      proxy = await startRoundRobinProxy({
        isReady: async (port) => (await replicas.find((replica) => replica.port === port)?.readyz()) === 200,
      });

      const rendered = await runCli(
        workDir,
        'manifests',
        '--url',
        `https://127.0.0.1:${proxy.port}`,
        '--name',
        installName,
        '--namespace',
        namespace,
        '--out',
        tree,
      );
      expect(rendered.code, rendered.stderr).toBe(0);
      expect(existsSync(overlay), `crdgate manifests rendered no ${overlay}: ${rendered.stdout}`).toBe(true);
      const built = parseAllDocuments(succeeded(await asAdmin(['kustomize', overlay]))).map((doc) => doc.toJS());
      const accounts = built.filter((object) => object.kind === 'ServiceAccount');
      expect(accounts.map((account) => `${account.metadata.namespace}/${account.metadata.name}`)).toHaveLength(1);
      serviceAccountName = accounts[0].metadata.name;

      // The previous file's CRD may still be going (its instances are deleted first); applying to it would fail.
      await crdNotBeingDeleted(cp, crdName);
      succeeded(await asAdmin(['apply', '--server-side', '-k', overlay]));
      succeeded(await asAdmin(['wait', '--for=condition=Established', '--timeout=60s', `crd/${crdName}`]));

      // From before any replica runs, so that every fill of the Secret is on record, whoever wrote it.
      secretHistory = await recordObjectHistory(
        cp.kubeconfigPath,
        `/api/v1/namespaces/${namespace}/secrets`,
        names.servingCertSecret,
      );
      serviceAccountKubeconfig = join(workDir, 'service-account.kubeconfig');
      await writeServiceAccountKubeconfig(cp, namespace, serviceAccountName, serviceAccountKubeconfig);
      // Both at once, as a Deployment's pods start: they race for the Lease and for the empty Secret.
      await Promise.all([startReplica(), startReplica()]);
    });

    afterAll(async () => {
      if (!controlPlane) return;
      secretHistory?.stop();
      // Webhooks first, so that no later write of a GeoDatabase is sent to a crdgate that is gone; the CRD names
      // crdgate for conversion, so it goes too (its objects with it), before the replicas stop.
      await asAdmin([
        'delete',
        '--ignore-not-found',
        `validatingwebhookconfiguration/${installName}`,
        `mutatingwebhookconfiguration/${installName}`,
        `validatingwebhookconfiguration/${otherName}`,
        `mutatingwebhookconfiguration/${otherName}`,
      ]);
      const crdDeleted = await asAdmin([
        'delete',
        '--ignore-not-found',
        '--wait=true',
        '--timeout=60s',
        `crd/${crdName}`,
      ]);
      await Promise.all(replicas.map((replica) => replica.stop()));
      // The rest of the overlay: the ClusterRole and its binding, and what lives in the namespace.
      const overlayDeleted = existsSync(overlay ?? '')
        ? await asAdmin(['delete', '--ignore-not-found', '--wait=false', '-k', overlay])
        : undefined;
      // No controller-manager runs, so the namespace stays Terminating; its name is unique to this run.
      await asAdmin(['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
      await proxy?.close();
      admin?.close();
      if (workDir) await rm(workDir, { recursive: true, force: true });
      // Left behind, a CRD naming a crdgate that is gone for conversion would break the next file's reads.
      expect(crdDeleted.exitCode, crdDeleted.stderr).toBe(0);
      if (overlayDeleted) expect(overlayDeleted.exitCode, overlayDeleted.stderr).toBe(0);
    });

    it('fresh install, the Secret shipped empty: filled once (not once per replica), every caBundle is its ca.crt, admission and conversion work', async () => {
      const secret = await settled(
        'the Secret to be filled, every caBundle to hold its CA and both replicas to serve its certificate',
      );

      // The overlay shipped it without data; then one CA and one serving pair, whatever else the replicas wrote.
      const history = secretHistory!.events();
      expect(history[0]!.object.data ?? {}).toEqual({});
      const versions = history.map((event) => readCertificateSecret(event.object));
      expect(new Set(versions.map((version) => version.caBundle).filter((pem) => pem !== '')).size).toBe(1);
      expect(new Set(versions.map((version) => version.servingCertificate).filter((pem) => pem !== '')).size).toBe(1);
      expect(await rotations('issue')).toBe(1);
      expect(await rotations('issue', 'failure')).toBe(0);
      // Filling in the caBundles a fresh install ships empty is no repair: an alert on repairs stays quiet.
      for (const resource of [
        'validatingwebhookconfigurations',
        'mutatingwebhookconfigurations',
        'customresourcedefinitions',
      ]) {
        expect(await repairs(resource), `repairs of ${resource}`).toBe(0);
      }

      expect(fingerprints(secret.caBundle)).toHaveLength(1);
      const served = new X509Certificate(secret.servingCertificate);
      expect(signerIn(served, secret.caBundle)).toBeDefined();
      expect(served.subjectAltName).toContain('IP Address:127.0.0.1');
      expect(served.subjectAltName).toContain(`DNS:${installName}.${namespace}.svc`);
      expect(Object.keys(await caBundles()).sort()).toEqual(
        [
          `CustomResourceDefinition ${crdName} conversion`,
          `MutatingWebhookConfiguration mutate.${crdName}`,
          `ValidatingWebhookConfiguration ${validatingWebhook}`,
          `ValidatingWebhookConfiguration status.${validatingWebhook}`,
        ].sort(),
      );

      // One leader, named in the Lease by the identity it was started with.
      const leaders = await leaderNow();
      expect(leaders.map((leader) => leader.identity)).toHaveLength(1);
      expect(await leaseHolder()).toBe(leaders[0]!.identity);
      expect(await sumOverReplicas(replicas, 'crdgate_certificates_ready')).toBe(2);

      // Admission: only crdgate can find this object invalid.
      const invalid = await admin.send(
        'POST',
        `/apis/geo.example.com/v1/namespaces/${namespace}/geodatabases`,
        invalidGeoDatabase(namespace, 'invalid'),
      );
      expect(invalid.status, invalid.text).toBe(422);
      expect((invalid.body as { message: string }).message).toContain(
        `admission webhook "${validatingWebhook}" denied the request`,
      );
      // Mutation: the defaults crdgate fills in.
      const valid = await admin
        .send('POST', geoDatabasesV1, validGeoDatabase(namespace, 'valid'))
        .then(expectStatus(201));
      expect((valid.body as any).spec.readReplicas).toBe(0);
      // Conversion, both ways: written in v1beta1 (stored in v1), read back in both.
      await admin
        .send('POST', geoDatabasesV1beta1, {
          apiVersion: 'geo.example.com/v1beta1',
          kind: 'GeoDatabase',
          metadata: { name: 'from-beta', namespace },
          spec: {
            postgres: { version: '17.2', postgis: '3.5.1' },
            replicas: 2,
            storage: { size: '100Gi' },
            caches: [{ name: 'x', memory: '256Mi' }],
          },
        })
        .then(expectStatus(201));
      expect(
        ((await admin.send('GET', `${geoDatabasesV1}/from-beta`).then(expectStatus(200))).body as any).spec,
      ).toMatchObject({ readReplicas: 2 });
      expect(
        (await admin.send('GET', `${geoDatabasesV1beta1}/valid`).then(expectStatus(200))).body as any,
      ).toMatchObject({
        apiVersion: 'geo.example.com/v1beta1',
        spec: { replicas: 0 },
      });
    });

    it('a forced CA rollover with a serving renewal in its middle, then more renewals, while writes and reads stream through v1beta1: 0 failed requests, and the new CA alone in the end', async () => {
      const before = await certificateSecret();
      const [oldCa] = fingerprints(before.caBundle);
      const counted = {
        caAdd: await rotations('ca_add'),
        caSwitch: await rotations('ca_switch'),
        caRetire: await rotations('ca_retire'),
        serving: await rotations('serving'),
      };
      const historyStart = secretHistory!.events().length;
      const connectionsBefore = proxy!.connectionsByBackend();
      const readinessChangesBefore = proxy!.readinessChanges().length;
      const api = restClient(cp.kubeconfigPath);
      const stream = streamThroughV1beta1(api, namespace, 'rollover');
      let requests: StreamedRequest[] = [];
      try {
        await pause(1_000);
        await requestRotation('ca');
        // A renewal asked for in the middle of the rollover, while the new CA is trusted and not yet signing.
        await eventually('the new CA to join the bundle', async () =>
          (await certificateSecret()).nextCa !== '' ? true : undefined,
        );
        await requestRotation('serving');
        const rolledOver = await settled(
          'the CA rollover to end with the new CA alone',
          (secret) => secret.rotateRequest === undefined && !fingerprints(secret.caBundle).includes(oldCa!),
          90_000,
        );
        const [newCa] = fingerprints(rolledOver.caBundle);
        expect(fingerprints(rolledOver.caBundle)).toEqual([newCa]);

        let current = rolledOver;
        for (let renewal = 1; renewal <= 3; renewal++) {
          const previous = current.servingCertificate;
          await requestRotation('serving');
          current = await settled(
            `serving renewal ${renewal}`,
            (secret) => secret.rotateRequest === undefined && secret.servingCertificate !== previous,
          );
          expect(fingerprints(current.caBundle)).toEqual([newCa]);
          await pause(500);
        }
        // Every replica presents a certificate of the new CA, and every caBundle is that CA alone.
        for (const replica of replicas)
          expect(signerIn(await replica.servingCertificate(), current.caBundle), replica.identity).toBeDefined();
        expect(new Set(Object.values(await caBundles()))).toEqual(new Set([current.caBundle]));
      } finally {
        requests = await stream.stop();
        api.close();
      }

      expect(requests.filter((request) => request.error !== undefined)).toEqual([]);
      expect(requests.length).toBeGreaterThan(50);
      // Neither replica failed its readiness probe meanwhile: a Service would have kept both, at every step.
      expect(proxy!.readinessChanges().slice(readinessChangesBefore)).toEqual([]);
      // The API server opened connections to both replicas meanwhile (a new client for each caBundle it was given).
      const connectionsAfter = proxy!.connectionsByBackend();
      for (const replica of replicas) {
        expect(
          (connectionsAfter.get(replica.port) ?? 0) - (connectionsBefore.get(replica.port) ?? 0),
          `connections to ${replica.identity}`,
        ).toBeGreaterThan(0);
      }

      // The steps, as the Secret went through them: the new CA joined the bundle before anything was signed by it,
      // and the old one left only after; no stored version ever paired a certificate with a bundle that lacks its CA.
      const versions = secretHistory!
        .events()
        .slice(historyStart)
        .map((event) => readCertificateSecret(event.object));
      const bundles = versions
        .map((version) => fingerprints(version.caBundle).join(','))
        .filter((bundle, index, all) => bundle !== all[index - 1]);
      expect(bundles.map((bundle) => bundle.split(',').length)).toEqual([1, 2, 1]);
      for (const version of versions) {
        expect(
          signerIn(new X509Certificate(version.servingCertificate), version.caBundle),
          `Secret at resourceVersion ${version.resourceVersion}`,
        ).toBeDefined();
      }
      expect(await rotations('ca_add')).toBe(counted.caAdd + 1);
      expect(await rotations('ca_switch')).toBe(counted.caSwitch + 1);
      expect(await rotations('ca_retire')).toBe(counted.caRetire + 1);
      expect(await rotations('serving')).toBe(counted.serving + 4);
    }, 240_000);

    it('the leader SIGKILLed: the other replica takes the Lease, and a renewal happens after that', async () => {
      const [leader] = await leaderNow();
      expect(leader, 'a leader').toBeDefined();
      expect(await leaseHolder()).toBe(leader!.identity);
      const follower = replicas.find((replica) => replica !== leader)!;
      const servingRenewals = await sumOverReplicas([follower], 'crdgate_certificate_rotations_total', {
        kind: 'serving',
        result: 'success',
      });

      expect((await leader!.kill()).signal).toBe('SIGKILL');
      retire(leader!);
      await eventually(`${follower.identity} to take the Lease`, async () =>
        (await leaseHolder()) === follower.identity &&
        (await sumOverReplicas([follower], 'crdgate_certificate_leader')) === 1
          ? true
          : undefined,
      );
      await eventually(`${follower.identity} to log "became leader"`, async () =>
        (await follower.logLines()).some((line) => line['msg'] === 'became leader') ? true : undefined,
      );

      const before = await certificateSecret();
      await requestRotation('serving');
      const renewed = await settled(
        'a serving renewal by the new leader',
        (secret) => secret.rotateRequest === undefined && secret.servingCertificate !== before.servingCertificate,
      );
      expect(fingerprints(renewed.caBundle)).toEqual(fingerprints(before.caBundle));
      expect(
        await sumOverReplicas([follower], 'crdgate_certificate_rotations_total', {
          kind: 'serving',
          result: 'success',
        }),
      ).toBe(servingRenewals + 1);

      // A new replica in the dead one's place: it follows the Secret without taking the Lease from the leader.
      const replacement = await startReplica();
      await settled(
        `${replacement.identity} to serve the current certificate`,
        (secret) => secret.servingCertificate === renewed.servingCertificate,
      );
      expect(await leaseHolder()).toBe(follower.identity);
      expect(await sumOverReplicas([replacement], 'crdgate_certificate_leader')).toBe(0);
    });

    it('caBundles blanked by replacing the objects with the plain base, then made stale by an apply: each repaired, and counted', async () => {
      const { caBundle } = await certificateSecret();
      const resources = [
        'validatingwebhookconfigurations',
        'mutatingwebhookconfigurations',
        'customresourcedefinitions',
      ];
      const repaired = async (what: string) => {
        const counted = Object.fromEntries(
          await Promise.all(resources.map(async (resource) => [resource, await repairs(resource)] as const)),
        );
        return async () => {
          await eventually(
            `${what}: every caBundle to be repaired`,
            async () => ((await everyCaBundleIs(caBundle)) ? true : undefined),
            { timeoutMs: 60_000 },
          );
          for (const resource of resources)
            expect(await repairs(resource), `${what}: repairs of ${resource}`).toBeGreaterThan(counted[resource]!);
        };
      };

      // A server-side apply of the plain base, even forcing conflicts, leaves the caBundles alone: it removes only
      // fields its own manager set, and crdgate's field manager set these.
      const repairsBefore = await Promise.all(resources.map((resource) => repairs(resource)));
      succeeded(await asAdmin(['apply', '--server-side', '--force-conflicts', '-k', join(tree, 'base')]));
      expect(await caBundlesNot(caBundle)).toBeUndefined();
      expect(await Promise.all(resources.map((resource) => repairs(resource)))).toEqual(repairsBefore);

      // The base, rendered without a caBundle, put in place whole: what a `kubectl replace` or a tool that replaces
      // objects does.
      const afterBlank = await repaired('replaced by the plain base');
      succeeded(await asAdmin(['replace', '-k', join(tree, 'base')]));
      await afterBlank();

      // Manifests rendered with a CA of their own (`manifests --ca-bundle`), applied over crdgate's with
      // --force-conflicts: kubectl takes the caBundles over with a CA nobody serves from.
      const stale = join(workDir!, 'stale');
      const staleCerts = await runCli(workDir!, 'certs', '--out', join(stale, 'certs'));
      expect(staleCerts.code, staleCerts.stderr).toBe(0);
      const staleRendered = await runCli(
        workDir!,
        'manifests',
        '--url',
        `https://127.0.0.1:${proxy!.port}`,
        '--ca-bundle',
        join(stale, 'certs', 'ca.crt'),
        '--name',
        installName,
        '--namespace',
        namespace,
        '--out',
        join(stale, 'deploy'),
      );
      expect(staleRendered.code, staleRendered.stderr).toBe(0);
      const afterStale = await repaired('applied with a stale CA');
      succeeded(await asAdmin(['apply', '--server-side', '--force-conflicts', '-k', join(stale, 'deploy', 'base')]));
      await afterStale();

      // And the webhooks answer again through the repaired configurations, once the replicas are ready (they were not
      // while their CA was missing) and routed to again.
      await settled('every replica ready again');
      const invalid = await admin.send('POST', geoDatabasesV1, invalidGeoDatabase(namespace, 'invalid-after-repair'));
      expect(invalid.status, invalid.text).toBe(422);
      await admin.send('GET', `${geoDatabasesV1beta1}/from-beta`).then(expectStatus(200));
    });

    it('readiness: a replica answers 503 while a caBundle lacks its CA, and 200 again once repaired', async () => {
      const { caBundle } = await certificateSecret();
      const [leader] = await leaderNow();
      const follower = replicas.find((replica) => replica !== leader)!;
      // The leader frozen, the caBundle stays blank until the follower takes the Lease, a lease duration later: long
      // enough to watch the follower's readiness.
      const samples: number[] = [];
      const reasons = new Set<string>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const answer = await follower.readyzAnswer();
          samples.push(answer.status);
          if (answer.status === 503) reasons.add(answer.body);
          await pause(50);
        }
      })();
      leader!.freeze();
      try {
        succeeded(
          await asAdmin([
            'patch',
            'validatingwebhookconfiguration',
            names.webhookConfiguration,
            '--type=json',
            '-p',
            JSON.stringify([{ op: 'replace', path: '/webhooks/0/clientConfig/caBundle', value: '' }]),
          ]),
        );
        await eventually(
          'the blanked caBundle to be repaired',
          async () => ((await everyCaBundleIs(caBundle)) ? true : undefined),
          { timeoutMs: 60_000 },
        );
        await eventually(`${follower.identity} to be ready again`, async () =>
          samples.at(-1) === 200 ? true : undefined,
        );
      } finally {
        leader!.resume();
        sampling = false;
        await sampler;
      }
      expect(samples).toContain(503);
      expect(samples.slice(samples.indexOf(503)).at(-1)).toBe(200);
      // The answer names the object to fix.
      expect([...reasons]).toContainEqual(
        expect.stringContaining(`validatingwebhookconfigurations/${names.webhookConfiguration}`),
      );
      // And its log says so as it changes: not ready naming the object, then ready.
      const readinessLog = await eventually(`${follower.identity} to log that it is ready again`, async () => {
        const lines = (await follower.logLines()).filter(
          (line) => line['msg'] === 'certificates not ready' || String(line['msg']).startsWith('certificates ready'),
        );
        return String(lines.at(-1)?.['msg']).startsWith('certificates ready') ? lines : undefined;
      });
      expect(readinessLog.map((line) => String(line['reason'] ?? 'ready'))).toContainEqual(
        expect.stringContaining(`validatingwebhookconfigurations/${names.webhookConfiguration}`),
      );
      // The frozen leader, woken up, finds the Lease taken: one leader again, and both replicas ready.
      await eventually(`${leader!.identity} to log "lost leadership"`, async () =>
        (await leader!.logLines()).some((line) => line['msg'] === 'lost leadership') ? true : undefined,
      );
      await eventually('one leader, both replicas ready', async () => {
        const leaders = await leaderNow();
        const ready = await Promise.all(replicas.map((replica) => replica.readyz()));
        return leaders.length === 1 &&
          (await leaseHolder()) === leaders[0]!.identity &&
          ready.every((status) => status === 200)
          ? true
          : undefined;
      });
    });

    it('the replicas ran as the rendered ServiceAccount, which can write nothing outside its resourceNames', async () => {
      const whoami = succeeded(
        await asServiceAccount(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']),
      );
      expect(whoami).toBe(`system:serviceaccount:${namespace}:${serviceAccountName}`);

      // Objects of the same kinds, other names: the admin makes them, the ServiceAccount may not write them.
      const others = [
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: otherName },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: otherName },
        },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: otherName, namespace }, stringData: { key: 'value' } },
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: otherName, namespace }, spec: {} },
      ];
      const othersFile = join(workDir!, 'others.json');
      await writeFile(othersFile, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: others }));
      succeeded(await asAdmin(['create', '-f', othersFile]));

      const forbidden = async (args: string[]) => {
        const result = await asServiceAccount(args);
        expect(result.exitCode, `${args.join(' ')} as the ServiceAccount: ${result.stdout}`).not.toBe(0);
        expect(result.stderr, args.join(' ')).toMatch(/Forbidden|forbidden/);
      };
      const label = JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }]);
      await forbidden(['patch', 'validatingwebhookconfiguration', otherName, '--type=json', '-p', label]);
      await forbidden(['patch', 'mutatingwebhookconfiguration', otherName, '--type=json', '-p', label]);
      await forbidden(['patch', 'secret', otherName, '-n', namespace, '--type=json', '-p', label]);
      await forbidden(['get', 'secret', otherName, '-n', namespace]);
      await forbidden(['create', 'secret', 'generic', `${otherName}-new`, '-n', namespace, '--from-literal=key=value']);
      await forbidden(['delete', 'secret', names.servingCertSecret, '-n', namespace]);
      await forbidden(['patch', 'crd', 'widgets.other.example.com', '--type=json', '-p', label]);
      await forbidden(['patch', 'lease', otherName, '-n', namespace, '--type=json', '-p', label]);
      await forbidden(['create', '-f', othersFile]);
      // What it did through this test it may do, on its own objects only.
      for (const [verb, resource] of [
        ['update', `secret/${names.servingCertSecret}`],
        ['update', `lease/${names.certLease}`],
        ['patch', `validatingwebhookconfiguration/${names.webhookConfiguration}`],
        ['patch', `mutatingwebhookconfiguration/${names.webhookConfiguration}`],
        ['patch', `customresourcedefinition/${crdName}`],
      ]) {
        expect(
          succeeded(await asServiceAccount(['auth', 'can-i', verb!, resource!, '-n', namespace])).trim(),
          `${verb} ${resource}`,
        ).toBe('yes');
      }
      for (const [verb, resource] of [
        ['list', 'secrets'],
        ['update', 'secrets'],
        ['patch', 'validatingwebhookconfigurations'],
        ['patch', 'customresourcedefinitions'],
      ]) {
        const answer = await asServiceAccount(['auth', 'can-i', verb!, resource!, '-n', namespace]);
        expect(answer.stdout.trim(), `${verb} ${resource}`).toBe('no');
      }
    });
  },
);
