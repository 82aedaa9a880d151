import { createServer } from 'node:net';
import type { StoredObjectReader } from '../../kube/stored-object-reading.ts';
import { hasServingCert } from '../../certs/cert-dir-layout.ts';
import type { CertificateManager } from '../../certs/self-managed/certificate-manager.ts';
import { developmentCertificate } from '../../config.ts';
import { ownsCrd } from '../../contract/contract-definition.ts';
import type { ContractRegistry } from '../../contract/registry.ts';
import type { Logger } from '../../log.ts';
import { ownerCrdName, type OwnerCrdTracker } from '../../server/owner-crds.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { asSystemError } from '../system-error.ts';
import type { ApiServerClient } from './api-client.ts';
import { crdGateFrom } from './crd-gate.ts';
import type { ServedHelpers, ServeFlags } from './flags.ts';
import { certificateManagerSettings, placeholderCertificate, type SelfManagedOptions } from './self-managed.ts';

/** The server and its helpers, running: they stop together. */
export interface Serving {
  /** Fail readiness, give up the Lease, stop following, drain, and wait for all of it. */
  stop(): Promise<void>;
}

/**
 * Starts the server and the helpers its flags and contracts call for (the certificate manager, the /scale reader,
 * the owner CRD follower, the CRD gate), all over one API server client. Everything that can fail on the flags'
 * account (a kubeconfig, a name no certificate can carry, a port in use) fails before development certificates are
 * written or the port is bound.
 */
export async function startServing(
  flags: ServeFlags,
  helpers: ServedHelpers,
  registry: ContractRegistry,
  io: { cwd: string; logger: Logger },
): Promise<Serving> {
  const { logger } = io;
  // A name no certificate can carry is said before any kubeconfig is read.
  const placeholder = flags.manageCerts ? await placeholderCertificate(flags.manageCerts.policy) : undefined;
  const api = helpers.needsApiServer ? await apiServerClientFor(flags, io.cwd) : undefined;
  const ownedCrds = crdNames(registry, { ownedOnly: true });
  const selfManaged: SelfManagedOptions | undefined =
    flags.manageCerts && placeholder && api
      ? { ...certificateManagerSettings(flags.manageCerts, await api(), ownedCrds), placeholder }
      : undefined;
  const readStoredObject = helpers.readsStoredObjects && api ? await storedObjectReader(api, logger) : undefined;
  const crdGate = flags.crdGate && api ? await crdGateFrom(flags.crdGate, api, io.cwd, logger) : undefined;
  const ownerSchema = flags.ownerSchema ?? 'contract';
  await assertCanListen(flags.port, flags.host);
  if (!selfManaged) await makeDevelopmentCertificate(flags.certDir, logger);

  let manager: CertificateManager | undefined;
  let ownerCrds: OwnerCrdTracker | undefined;
  const certificatesNotReady = selfManaged
    ? () => (manager ? manager.notReadyBecause() : 'the certificate manager has not started')
    : () => undefined;
  const { port, host, certDir } = flags;
  const server = await startServer({
    port,
    host,
    certDir,
    ...(selfManaged ? { certificate: selfManaged.placeholder } : {}),
    notReadyBecause: () => certificatesNotReady() ?? ownerCrds?.notReadyBecause(),
    ...(flags.clientCaFile ? { clientCaFile: flags.clientCaFile, clientCaEndpoints: flags.clientCaEndpoints } : {}),
    registry,
    ...(readStoredObject ? { readStoredObject } : {}),
    ...(crdGate ? { crdGate } : {}),
    logger,
    limits: flags.limits,
    drainDelayMs: flags.drainDelayMs,
  }).catch((error: unknown) =>
    asSystemError(
      error,
      selfManaged
        ? `cannot serve on ${host}:${port}`
        : `cannot serve on ${host}:${port} with the certificates in ${certDir}`,
    ),
  );
  if (selfManaged) manager = await startManager(selfManaged, server, logger);
  const stopFollowing = new AbortController();
  let following: Promise<void> | undefined;
  if (helpers.followsOwnerCrds && api) {
    const { createOwnerCrdTracker, followOwnerCrds } = await import('../../server/owner-crds.ts');
    let current = registry;
    ownerCrds = createOwnerCrdTracker({
      mode: ownerSchema,
      registry: () => current,
      replaceRegistry: (next) => {
        current = next;
        server.replaceRegistry(next);
      },
      metrics: server.metrics.ownerCrds,
      logger,
    });
    following = followOwnerCrds({ api, tracker: ownerCrds, signal: stopFollowing.signal });
  }
  logger.info(
    {
      port: server.port,
      ...(selfManaged
        ? { certificates: `secret ${selfManaged.namespace}/${selfManaged.secretName}`, identity: selfManaged.identity }
        : { certDir }),
      contracts: crdNames(registry),
      clientCertificateRequiredOn: flags.clientCaFile ? flags.clientCaEndpoints : [],
      ...(ownerCrds ? { ownerCrds: ownerCrds.contracts.map(ownerCrdName), ownerSchema } : {}),
    },
    'crdgate is serving',
  );
  return {
    async stop() {
      // The Lease is given up at once, so that another replica takes over rotations without waiting for it to expire.
      stopFollowing.abort();
      await Promise.all([server.shutdown(), manager?.stop(), following]);
    },
  };
}

/** The client loads the kubeconfig (yaml, client-node): a server that needs no API server never carries them. */
async function apiServerClientFor(flags: ServeFlags, cwd: string): Promise<ApiServerClient> {
  const { apiServerClient } = await import('./api-client.ts');
  return apiServerClient(flags.kube, cwd, { mustLoadNow: flags.manageCerts !== undefined });
}

async function startManager(
  selfManaged: SelfManagedOptions,
  server: RunningServer,
  logger: Logger,
): Promise<CertificateManager> {
  const { startCertificateManager } = await import('../../certs/self-managed/certificate-manager.ts');
  const { placeholder: _placeholder, ...managerOptions } = selfManaged;
  const { replaceCertificate: serve, metrics } = server;
  return startCertificateManager({ ...managerOptions, serve, metrics: metrics.selfManaged, logger });
}

/**
 * The reader of the objects behind /scale reviews. A default kubeconfig that cannot be loaded yet is tried again at
 * each /scale review (each denied until it loads), so a server started before its API server reads once it is up.
 */
async function storedObjectReader(api: ApiServerClient, logger: Logger): Promise<StoredObjectReader> {
  const { createStoredObjectReader } = await import('../../kube/stored-object-reader.ts');
  try {
    await api();
  } catch (error) {
    logger.warn(
      { reason: (error as Error).message },
      'no API server client: /scale reviews are denied until one loads (tried again at each)',
    );
  }
  return createStoredObjectReader(api);
}

/** Without a certificate in the folder, one for localhost and 127.0.0.1, and a warning that says so. */
async function makeDevelopmentCertificate(certDir: string, logger: Logger): Promise<void> {
  if (await hasServingCert(certDir)) return;
  // node-forge is loaded only to make this certificate: a server given its certificate never carries it.
  const { writeCertDir } = await import('../../certs/cert-dir.ts');
  const made = await writeCertDir(certDir, {
    dnsNames: [...developmentCertificate.dnsNames],
    ipAddresses: [...developmentCertificate.ipAddresses],
    days: developmentCertificate.days,
  }).catch((error: unknown) => asSystemError(error, `cannot write development certificates to ${certDir}`));
  logger.warn(
    { certDir, caCert: made.files.caCert },
    'no serving certificate found: generated a development certificate (for localhost and 127.0.0.1 only)',
  );
}

function crdNames(registry: ContractRegistry, { ownedOnly = false } = {}): string[] {
  return registry.contracts
    .filter((c) => !ownedOnly || ownsCrd(c.contract))
    .map((c) => `${c.contract.identity.plural}.${c.contract.identity.group}`);
}

/**
 * Binds the address once and lets it go, so a port in use is reported before development certificates are
 * written. The real listener binds it again a moment later; losing that race is reported the same way.
 */
async function assertCanListen(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  }).catch((error: unknown) => asSystemError(error, `cannot listen on ${host}:${port}`));
}
