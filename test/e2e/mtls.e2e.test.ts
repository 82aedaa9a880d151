import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueCertificate, type PemPair } from '../../src/certs/pki.ts';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.ts';
import { findFreePort } from '../../src/control-plane/free-port.ts';
import { loadRegistry } from '../../src/commands/contracts.ts';
import { serveDefaults } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/serve.ts';
import { loadFixture } from '../integration/support/test-server.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { refusal } from './support/api-error.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  removeCrdgate,
  startCrdgateForApiServer,
  type CrdgateInFront,
} from './support/crdgate-webhooks.ts';
import { geoDatabases, invalidGeoDatabase, validGeoDatabase } from './support/geodatabases.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const base64 = (pem: string) => Buffer.from(pem).toString('base64');

/**
 * kube-apiserver's admission configuration: both webhook plugins read a kubeconfig whose user named after the
 * webhook's host:port holds the client certificate the API server presents there. Conversion has no such file.
 */
async function writeAdmissionConfiguration(dir: string, port: number, client: PemPair): Promise<string> {
  const kubeconfig = join(dir, 'webhook-kubeconfig.yaml');
  await writeFile(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      users: [
        {
          name: `127.0.0.1:${port}`,
          user: { 'client-certificate-data': base64(client.certPem), 'client-key-data': base64(client.keyPem) },
        },
      ],
    }),
  );
  const plugin = (name: string) => ({
    name,
    configuration: {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'WebhookAdmissionConfiguration',
      kubeConfigFile: kubeconfig,
    },
  });
  const admissionConfiguration = join(dir, 'admission-configuration.yaml');
  await writeFile(
    admissionConfiguration,
    stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [plugin('ValidatingAdmissionWebhook'), plugin('MutatingAdmissionWebhook')],
    }),
  );
  return admissionConfiguration;
}

describe.skipIf(!controlPlane)(
  'mTLS: kube-apiserver presents a client certificate, crdgate requires it with --client-ca',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const namespace = 'mtls';
    let dir: string;
    let apiServer: ControlPlane;
    let gate: CrdgateInFront;
    let kubeConfig: KubeConfig;
    let customObjects: CustomObjectsApi;
    let client: PemPair;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-mtls-'));
      const clientCa = createCertificateAuthority({ commonName: 'crdgate-e2e-webhook-client-ca', days: 1 });
      client = issueCertificate(clientCa, { commonName: 'kube-apiserver-webhook-client', days: 1, usage: 'client' });
      await writeFile(join(dir, 'client-ca.crt'), clientCa.certPem);
      const port = await findFreePort();
      // A control plane of this file's own: the admission configuration is a start-up flag of kube-apiserver.
      apiServer = await startControlPlane({
        assetsDir: cp.assetsDir,
        extraApiServerFlags: [
          `--admission-control-config-file=${await writeAdmissionConfiguration(dir, port, client)}`,
        ],
      });
      kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(apiServer.kubeconfigPath);
      customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
      await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
      // The default endpoints: a certificate is required on /validate and /mutate, not on /convert.
      gate = await startCrdgateForApiServer({ port, clientCaFile: join(dir, 'client-ca.crt') });
      await applyCrd(kubeConfig, gate.crd);
      // Waits until the API server's admission calls are answered (a refused call would fail every probe).
      await applyWebhookConfigurations(kubeConfig, gate, namespace);
    }, 180_000);

    afterAll(async () => {
      if (gate) await removeCrdgate(kubeConfig, gate);
      await apiServer?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const callsFromApiServer = (path: string) => gate.server.logLines().filter((line) => line['path'] === path);

    it('admission calls from the API server carry the certificate and pass: defaults applied, an invalid object denied', async () => {
      const created = (await customObjects.createNamespacedCustomObject({
        ...geoDatabases,
        namespace,
        body: validGeoDatabase(namespace, 'db'),
      })) as {
        spec: { readReplicas?: number };
      };
      expect(created.spec.readReplicas).toBe(0);
      const denied = await refusal(
        customObjects.createNamespacedCustomObject({
          ...geoDatabases,
          namespace,
          body: invalidGeoDatabase(namespace, 'bad'),
        }),
      );
      expect(denied.message).toContain('admission webhook "validate.geodatabases.geo.example.com" denied the request');
      for (const path of ['/validate', '/mutate']) {
        expect(callsFromApiServer(path).length).toBeGreaterThan(0);
        expect(callsFromApiServer(path).map((line) => line['status'])).not.toContain(401);
      }
    });

    it('reads and writes in versions other than the storage version still work: /convert is not behind the certificate', async () => {
      const asV1alpha1 = (await customObjects.getNamespacedCustomObject({
        ...geoDatabases,
        version: 'v1alpha1',
        namespace,
        name: 'db',
      })) as { apiVersion: string };
      expect(asV1alpha1.apiVersion).toBe('geo.example.com/v1alpha1');
      await customObjects.createNamespacedCustomObject({
        ...geoDatabases,
        version: 'v1beta1',
        namespace,
        body: {
          apiVersion: 'geo.example.com/v1beta1',
          kind: 'GeoDatabase',
          metadata: { name: 'old-client', namespace },
          spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '20Gi' } },
        },
      });
      const asV1 = (await customObjects.getNamespacedCustomObject({
        ...geoDatabases,
        namespace,
        name: 'old-client',
      })) as { apiVersion: string; spec: { readReplicas: number } };
      expect(asV1).toMatchObject({ apiVersion: 'geo.example.com/v1', spec: { readReplicas: 0 } });
      const conversions = callsFromApiServer('/convert');
      expect(conversions.length).toBeGreaterThan(0);
      expect(conversions.every((line) => line['status'] === 200)).toBe(true);
    });

    it('refuses a client without a certificate, or with one from another CA, on the admission endpoints', async () => {
      const review = await loadFixture('create-geodatabase.json');
      expect((await gate.server.post('/validate', review)).status).toBe(401);
      expect((await gate.server.post('/mutate', review)).status).toBe(401);
      const stranger = issueCertificate(createCertificateAuthority({ commonName: 'someone-else', days: 1 }), {
        commonName: 'x',
        days: 1,
        usage: 'client',
      });
      expect(
        (await gate.server.post('/validate', review, { tls: { cert: stranger.certPem, key: stranger.keyPem } })).status,
      ).toBe(401);
      const withCertificate = await gate.server.post('/validate', review, {
        tls: { cert: client.certPem, key: client.keyPem },
      });
      expect(withCertificate.json().response.allowed).toBe(true);
    });

    it('requiring the certificate on /convert too breaks every read in another version: why it is not the default', async () => {
      // The same port and certificates, now with convert among the guarded endpoints.
      const stopping = gate.server.running.shutdown();
      // The API server's keep-alive connections would otherwise hold the old listener open for its shutdown timeout.
      gate.server.running.server.closeAllConnections();
      await stopping;
      const guarded = await startServer({
        port: gate.server.port,
        host: '127.0.0.1',
        certDir: gate.server.certDir,
        clientCaFile: join(dir, 'client-ca.crt'),
        clientCaEndpoints: ['validate', 'mutate', 'convert'],
        registry: await loadRegistry([], process.cwd()),
        logger: createLogger({ level: 'silent' }),
        limits: {
          admissionBytes: serveDefaults.admissionBodyBytes,
          conversionBytes: serveDefaults.conversionBodyBytes,
        },
        drainDelayMs: 0,
      });
      try {
        const failed = await refusal(
          customObjects.getNamespacedCustomObject({ ...geoDatabases, version: 'v1alpha1', namespace, name: 'db' }),
        );
        // kube-apiserver v1.36: "conversion webhook for geo.example.com/v1, Kind=GeoDatabase failed: the server has
        // asked for the client to provide credentials".
        expect(failed.message).toContain('conversion webhook');
        expect(failed.message).toContain('provide credentials');
        // The storage version needs no conversion: reads in it still work.
        expect(await customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name: 'db' })).toMatchObject(
          { apiVersion: 'geo.example.com/v1' },
        );
      } finally {
        await guarded.shutdown();
      }
    });
  },
);
