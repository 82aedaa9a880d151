import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CrdGate } from './crd-gate-route.ts';
import type { StoredObjectReader } from '../kube/stored-object-reading.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import type { Logger } from '../log.ts';
import { createApp, defaultClientCaEndpoints, type WebhookEndpoint } from './app.ts';
import { expressBornMessages } from './express-born-messages.ts';
import { createServerMetrics, type ServerMetrics } from './metrics.ts';
import type { ServingCertificate } from '../certs/serving-certificate.ts';
import {
  assertUsable,
  certificateNotAfterSeconds,
  readServingCertificate,
  watchServingCertificate,
} from './tls-files.ts';

export interface ServeOptions {
  port: number;
  host?: string;
  /** Where tls.crt/tls.key are read from, and followed as they change; unused when `certificate` is given. */
  certDir: string;
  /** The pair to serve, from elsewhere than files (`--manage-certs`): swapped later with replaceCertificate. */
  certificate?: ServingCertificate;
  /** A further condition for readiness (a certificate the API servers trust): why it does not hold yet, if it does not. */
  notReadyBecause?: () => string | undefined;
  clientCaFile?: string;
  /** Where a client certificate signed by clientCaFile is required; default validate and mutate (see docs/server.md, mTLS). */
  clientCaEndpoints?: readonly WebhookEndpoint[];
  registry: ContractRegistry;
  /** Reads the custom object behind a /scale review from the API server; without it, /scale reviews are denied. */
  readStoredObject?: StoredObjectReader;
  /** The CRD gate (`--crd-gate`): /crd-gate judges updates of CRDs; without it, that path is not served. */
  crdGate?: CrdGate;
  logger: Logger;
  limits: { admissionBytes: number; conversionBytes: number; inFlightBytes?: number };
  /** How long readiness reports failure before the listener closes, so endpoints stop routing here first. */
  drainDelayMs: number;
  /** How long in-flight requests may take to finish after the listener closes. */
  shutdownTimeoutMs?: number;
  certPollMs?: number;
}

export interface RunningServer {
  port: number;
  server: Server;
  metrics: ServerMetrics;
  /**
   * Serve this pair from the next handshake on (open connections keep theirs), as a reload from files does; a pair
   * whose key does not match is refused and counted, and the current one kept.
   */
  replaceCertificate(certificate: ServingCertificate): boolean;
  /** Decide with these contracts from the next request on; requests already being decided finish with the old ones. */
  replaceRegistry(registry: ContractRegistry): void;
  /** Fail readiness, wait the drain delay, stop accepting, finish in-flight requests. */
  shutdown(): Promise<void>;
}

// The API server keeps idle webhook connections for 90 s; closing ours earlier races its reuse of them.
const keepAliveTimeoutMs = 120_000;
// The API server gives a webhook at most 30 s; nothing legitimate takes longer.
const requestTimeoutMs = 30_000;

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { logger } = options;
  const certificate = options.certificate ?? (await readServingCertificate(options.certDir));
  const clientCa = options.clientCaFile ? await readFile(options.clientCaFile) : undefined;
  const metrics = createServerMetrics();
  metrics.certificateNotAfter.set(certificateNotAfterSeconds(certificate.cert));
  let shuttingDown = false;
  let registry = options.registry;

  const app = createApp({
    registry: () => registry,
    metrics,
    logger,
    limits: options.limits,
    notReadyBecause: () => (shuttingDown ? 'shutting down' : options.notReadyBecause?.()),
    clientCertificateEndpoints: new Set(clientCa ? (options.clientCaEndpoints ?? defaultClientCaEndpoints) : []),
    ...(options.readStoredObject ? { readStoredObject: options.readStoredObject } : {}),
    ...(options.crdGate ? { crdGate: options.crdGate } : {}),
  });
  const server = createServer(
    {
      cert: certificate.cert,
      key: certificate.key,
      minVersion: 'TLSv1.2',
      ALPNProtocols: ['http/1.1'],
      // Probes come without a client certificate: the handshake asks for one, the webhook routes require it.
      ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: false } : {}),
      ...expressBornMessages(app),
    },
    app,
  );
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.requestTimeout = requestTimeoutMs;
  server.headersTimeout = requestTimeoutMs;

  const apply = (next: ServingCertificate) =>
    server.setSecureContext({ cert: next.cert, key: next.key, ...(clientCa ? { ca: clientCa } : {}) });
  const onReload = (result: 'loaded' | 'refused', loaded?: ServingCertificate) => {
    metrics.certificateReloads.inc({ result });
    if (loaded) metrics.certificateNotAfter.set(certificateNotAfterSeconds(loaded.cert));
  };
  const reloader = options.certificate
    ? undefined
    : watchServingCertificate({
        certDir: options.certDir,
        current: certificate,
        logger,
        ...(options.certPollMs !== undefined ? { pollMs: options.certPollMs } : {}),
        apply,
        onReload,
      });

  function replaceCertificate(next: ServingCertificate): boolean {
    try {
      assertUsable(next);
    } catch (error) {
      logger.warn({ err: error }, 'serving certificate not reloaded: keeping the current one');
      onReload('refused');
      return false;
    }
    apply(next);
    logger.info('serving certificate reloaded');
    onReload('loaded', next);
    return true;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let stopping: Promise<void> | undefined;
  async function shutdown(): Promise<void> {
    shuttingDown = true;
    await new Promise((resolve) => setTimeout(resolve, options.drainDelayMs));
    reloader?.stop();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const deadline = setTimeout(() => server.closeAllConnections(), options.shutdownTimeoutMs ?? requestTimeoutMs);
    await closed;
    clearTimeout(deadline);
  }

  return {
    port,
    server,
    metrics,
    replaceCertificate,
    replaceRegistry: (next) => {
      registry = next;
    },
    shutdown: () => (stopping ??= shutdown()),
  };
}
