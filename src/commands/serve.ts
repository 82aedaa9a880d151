import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { hasServingCert } from '../certs/cert-dir-layout.ts';
import { developmentCertificate, serveDefaults } from '../config.ts';
import { createLogger } from '../log.ts';
import { webhookEndpoints, type WebhookEndpoint } from '../server/app.ts';
import { startServer } from '../server/serve.ts';
import { portOption, positiveInteger, stringList, stringOption, UsageError, type Command, type ParsedValues } from './command.ts';
import { asUsageError } from './system-error.ts';
import { loadRegistry } from './contracts.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the HTTPS webhook server (validate, mutate, convert)',
  usage: `crdgate serve [--port ${serveDefaults.port}] [--cert-dir ${serveDefaults.certDir}] [--contract MODULE]... [--client-ca FILE]
              [--client-ca-endpoints validate,mutate] [--admission-body-limit BYTES] [--conversion-body-limit BYTES]
              [--drain-delay SECONDS] [--log-level LEVEL]

  Serves POST /validate, /mutate, /convert and GET /healthz, /readyz, /metrics over HTTPS.
  Without tls.crt/tls.key in --cert-dir, development certificates (localhost, 127.0.0.1) are generated there.
  --client-ca FILE   require a client certificate signed by this CA (mTLS) on the endpoints named by
                     --client-ca-endpoints (default validate,mutate: kube-apiserver presents no client
                     certificate to conversion webhooks, so requiring one on convert breaks every read and
                     write through another version)
  --drain-delay N    seconds between SIGTERM (readiness fails) and closing the listener (default ${serveDefaults.drainDelaySeconds})`,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'cert-dir': { type: 'string' },
    contract: { type: 'string', multiple: true },
    'client-ca': { type: 'string' },
    'client-ca-endpoints': { type: 'string' },
    'admission-body-limit': { type: 'string' },
    'conversion-body-limit': { type: 'string' },
    'drain-delay': { type: 'string' },
    'log-level': { type: 'string' },
  },
  async run(values, io) {
    // Every flag is checked before anything is written or bound: a typo must not leave certificates behind.
    const port = portOption(values, 'port', serveDefaults.port);
    const host = stringOption(values, 'host') ?? '0.0.0.0';
    const certDir = resolve(io.cwd, stringOption(values, 'cert-dir') ?? serveDefaults.certDir);
    const clientCa = stringOption(values, 'client-ca');
    const clientCaEndpoints = endpointList(values, 'client-ca-endpoints');
    const limits = {
      admissionBytes: positiveInteger(values, 'admission-body-limit', serveDefaults.admissionBodyBytes),
      conversionBytes: positiveInteger(values, 'conversion-body-limit', serveDefaults.conversionBodyBytes),
    };
    const drainDelayMs = positiveInteger(values, 'drain-delay', serveDefaults.drainDelaySeconds, { allowZero: true }) * 1000;
    const logger = createLogger({ level: stringOption(values, 'log-level') ?? serveDefaults.logLevel });
    const registry = await loadRegistry(stringList(values, 'contract'), io.cwd);
    await assertCanListen(port, host);

    if (!(await hasServingCert(certDir))) {
      // node-forge is loaded only to make this certificate: a server given its certificate never carries it.
      const { writeCertDir } = await import('../certs/cert-dir.ts');
      const made = await writeCertDir(certDir, {
        dnsNames: [...developmentCertificate.dnsNames],
        ipAddresses: [...developmentCertificate.ipAddresses],
        days: developmentCertificate.days,
      }).catch((error: unknown) => asUsageError(error, `cannot write development certificates to ${certDir}`));
      logger.warn({ certDir, caCert: made.files.caCert }, 'no serving certificate found: generated a development certificate (for localhost and 127.0.0.1 only)');
    }

    const server = await startServer({
      port,
      host,
      certDir,
      ...(clientCa ? { clientCaFile: resolve(io.cwd, clientCa), clientCaEndpoints } : {}),
      registry,
      logger,
      limits,
      drainDelayMs,
    }).catch((error: unknown) => asUsageError(error, `cannot serve on ${host}:${port} with the certificates in ${certDir}`));
    const kinds = registry.contracts.map((c) => `${c.contract.identity.plural}.${c.contract.identity.group}`);
    logger.info({ port: server.port, certDir, contracts: kinds, clientCertificateRequiredOn: clientCa ? clientCaEndpoints : [] }, 'crdgate is serving');

    const signal = await io.waitForStop();
    logger.info({ signal }, 'shutting down: readiness fails now, in-flight requests finish');
    await server.shutdown();
    logger.info('stopped');
    logger.flush();
    return 0;
  },
};

function endpointList(values: ParsedValues, name: string): WebhookEndpoint[] {
  const text = stringOption(values, name);
  if (text === undefined) return ['validate', 'mutate'];
  const names = text.split(',').map((part) => part.trim().replace(/^\//, ''));
  const unknown = names.filter((part) => !(webhookEndpoints as readonly string[]).includes(part));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`--${name} takes a list of ${webhookEndpoints.join(', ')}, got "${text}"`);
  }
  return names as WebhookEndpoint[];
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
  }).catch((error: unknown) => asUsageError(error, `cannot listen on ${host}:${port}`));
}
