import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createCertificateAuthority, issueCertificate } from '../certs/pki.ts';
import type { PemPair } from '../certs/pki.ts';
import { findFreePort } from './free-port.ts';
import { httpsGet } from './https-get.ts';
import { startManagedProcess, waitUntilReady } from './managed-process.ts';
import type { ManagedProcess } from './managed-process.ts';

export interface ControlPlane {
  apiServerUrl: string; // https://127.0.0.1:PORT
  etcdUrl: string; // http://127.0.0.1:PORT
  kubeconfigPath: string; // admin: client certificate CN=admin, O=system:masters
  kubeApiserverVersion: string; // from GET /version, e.g. v1.36.4
  kubectlPath: string;
  dir: string; // temporary folder holding certificates, data and logs
  /** Stops kube-apiserver only (etcd keeps its data), for tests of clients that must survive an outage. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again with the same flags and port, and resolves once it serves requests. */
  startApiServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartControlPlaneOptions {
  /** A folder holding kube-apiserver, etcd and kubectl (see kube-assets.ts). */
  assetsDir: string;
  /** A folder for its certificates, data and logs, removed by stop(); default: a new temporary one. */
  dir?: string;
  /** `--name=value` flags; they replace the default flag of the same name. */
  extraApiServerFlags?: string[];
  log?: (line: string) => void;
}

/**
 * Where a control plane started in `dir` writes its admin kubeconfig, once its API server serves: known before, so
 * a process started next to it can be pointed at the file that is to come.
 */
export function controlPlaneKubeconfigPath(dir: string): string {
  return join(dir, 'kubeconfig');
}

// envtest waits 20 s; a cold kube-apiserver on a busy 2-core CI runner needs more.
const ETCD_START_TIMEOUT_MS = 30_000;
const APISERVER_START_TIMEOUT_MS = 90_000;
const DEFAULT_NAMESPACE_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const CERT_DAYS = 7;

/**
 * Starts etcd and kube-apiserver on 127.0.0.1 the way controller-runtime's envtest does, and
 * resolves once the API server serves the `default` namespace to an admin client.
 */
export async function startControlPlane(opts: StartControlPlaneOptions): Promise<ControlPlane> {
  const log = opts.log ?? (() => {});
  const startedAt = Date.now();
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'crdgate-control-plane-')));
  log(`control plane folder ${dir}`);
  const processes: ManagedProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // API server first: it would otherwise log etcd connection errors while shutting down.
      for (const child of [...processes].reverse()) await child.stop(STOP_GRACE_MS);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  try {
    const [etcdPort, etcdPeerPort, apiServerPort] = await distinctFreePorts(3);
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const apiServerUrl = `https://127.0.0.1:${apiServerPort}`;
    const pki = await writePki(join(dir, 'certs'));

    const etcd = startManagedProcess({
      name: 'etcd',
      command: join(opts.assetsDir, 'etcd'),
      args: [
        `--data-dir=${join(dir, 'etcd-data')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-cluster=default=http://127.0.0.1:${etcdPeerPort}`,
        // Test data is thrown away; fsync would only make every write wait for the disk.
        '--unsafe-no-fsync=true',
      ],
      cwd: dir,
      logFile: join(dir, 'etcd.log'),
    });
    processes.push(etcd);
    await waitUntilReady(etcd, 'GET /health', ETCD_START_TIMEOUT_MS, async () => {
      const response = await fetch(`${etcdUrl}/health`, { signal: AbortSignal.timeout(2_000) });
      return response.ok;
    });
    log(`etcd ready at ${etcdUrl} after ${Date.now() - startedAt} ms`);

    const apiServerFlags = mergeFlags(
      [
        `--etcd-servers=${etcdUrl}`,
        `--cert-dir=${pki.certDir}`,
        `--secure-port=${apiServerPort}`,
        '--bind-address=127.0.0.1',
        // Otherwise it picks the host's default-route address for the `kubernetes` Service.
        '--advertise-address=127.0.0.1',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        // No controller-manager runs, so no service-account tokens would ever appear for pods.
        '--disable-admission-plugins=ServiceAccount',
        '--authorization-mode=RBAC',
        `--service-account-issuer=${apiServerUrl}/`,
        `--service-account-key-file=${pki.serviceAccountPublicKey}`,
        `--service-account-signing-key-file=${pki.serviceAccountPrivateKey}`,
        `--client-ca-file=${pki.clientCaCert}`,
      ],
      opts.extraApiServerFlags ?? [],
    );
    const admin = { ca: pki.servingCa.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
    let apiServer: ManagedProcess | undefined;
    const startApiServer = async (): Promise<void> => {
      if (apiServer && !apiServer.exit) return;
      const started = startManagedProcess({
        name: 'kube-apiserver',
        command: join(opts.assetsDir, 'kube-apiserver'),
        args: apiServerFlags,
        cwd: dir,
        logFile: join(dir, 'kube-apiserver.log'),
      });
      apiServer = started;
      processes.push(started);
      await waitUntilReady(started, 'GET /healthz', APISERVER_START_TIMEOUT_MS, async () => {
        return (await httpsGet(`${apiServerUrl}/healthz`, admin)).status === 200;
      });
      // /healthz turns green before the bootstrap controller has created the default namespace.
      await waitUntilReady(started, 'GET namespace default', DEFAULT_NAMESPACE_TIMEOUT_MS, async () => {
        return (await httpsGet(`${apiServerUrl}/api/v1/namespaces/default`, admin)).status === 200;
      });
    };
    const stopApiServer = async (): Promise<void> => {
      await apiServer?.stop(STOP_GRACE_MS);
    };
    await startApiServer();
    const version = JSON.parse((await httpsGet(`${apiServerUrl}/version`, admin)).body) as { gitVersion: string };
    log(`kube-apiserver ${version.gitVersion} ready at ${apiServerUrl} after ${Date.now() - startedAt} ms`);

    const kubeconfigPath = controlPlaneKubeconfigPath(dir);
    await writeFile(kubeconfigPath, adminKubeconfig(apiServerUrl, pki.servingCa, pki.admin), { mode: 0o600 });
    return {
      apiServerUrl,
      etcdUrl,
      kubeconfigPath,
      kubeApiserverVersion: version.gitVersion,
      kubectlPath: join(opts.assetsDir, 'kubectl'),
      dir,
      stopApiServer,
      startApiServer,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface ControlPlanePki {
  certDir: string;
  servingCa: PemPair;
  admin: PemPair;
  clientCaCert: string;
  serviceAccountPublicKey: string;
  serviceAccountPrivateKey: string;
}

async function writePki(certDir: string): Promise<ControlPlanePki> {
  await mkdir(certDir, { recursive: true });
  const servingCa = createCertificateAuthority({ commonName: 'crdgate-test-serving-ca', days: CERT_DAYS });
  // kube-apiserver uses apiserver.crt/.key from --cert-dir when present, instead of making its own.
  const serving = issueCertificate(servingCa, {
    commonName: 'kube-apiserver',
    dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
    ipAddresses: ['127.0.0.1', '10.0.0.1'],
    days: CERT_DAYS,
    usage: 'server',
  });
  const clientCa = createCertificateAuthority({ commonName: 'crdgate-test-client-ca', days: CERT_DAYS });
  const admin = issueCertificate(clientCa, {
    commonName: 'admin',
    organizations: ['system:masters'],
    days: CERT_DAYS,
    usage: 'client',
  });
  const serviceAccount = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

  const files = {
    'apiserver.crt': serving.certPem,
    'apiserver.key': serving.keyPem,
    'client-ca.crt': clientCa.certPem,
    'sa.pub': serviceAccount.publicKey,
    'sa.key': serviceAccount.privateKey,
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(certDir, name), content, { mode: 0o600 });
  return {
    certDir,
    servingCa,
    admin,
    clientCaCert: join(certDir, 'client-ca.crt'),
    serviceAccountPublicKey: join(certDir, 'sa.pub'),
    serviceAccountPrivateKey: join(certDir, 'sa.key'),
  };
}

function adminKubeconfig(server: string, servingCa: PemPair, admin: PemPair): string {
  const base64 = (pem: string): string => Buffer.from(pem).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'crdgate-test', cluster: { server, 'certificate-authority-data': base64(servingCa.certPem) } }],
    users: [
      {
        name: 'admin',
        user: { 'client-certificate-data': base64(admin.certPem), 'client-key-data': base64(admin.keyPem) },
      },
    ],
    contexts: [{ name: 'crdgate-test', context: { cluster: 'crdgate-test', user: 'admin', namespace: 'default' } }],
    'current-context': 'crdgate-test',
  });
}

function flagName(flag: string): string {
  return flag.replace(/^--?/, '').split('=')[0] ?? flag;
}

function mergeFlags(defaults: string[], extra: string[]): string[] {
  const overridden = new Set(extra.map(flagName));
  return [...defaults.filter((flag) => !overridden.has(flagName(flag))), ...extra];
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await findFreePort());
  return [...ports];
}
