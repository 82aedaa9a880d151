import { resolve } from 'node:path';
import { hasServingCert, writeCertDir } from '../certs/cert-dir.ts';
import { developmentCertificate, serveDefaults } from '../config.ts';
import { createLogger } from '../log.ts';
import { startServer } from '../server/serve.ts';
import { positiveInteger, stringList, stringOption, type Command } from './command.ts';
import { loadRegistry } from './contracts.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the HTTPS webhook server (validate, mutate, convert)',
  usage: `crdgate serve [--port ${serveDefaults.port}] [--cert-dir ${serveDefaults.certDir}] [--contract MODULE]... [--client-ca FILE]
              [--admission-body-limit BYTES] [--conversion-body-limit BYTES] [--drain-delay SECONDS] [--log-level LEVEL]

  Serves POST /validate, /mutate, /convert and GET /healthz, /readyz, /metrics over HTTPS.
  Without tls.crt/tls.key in --cert-dir, development certificates (localhost, 127.0.0.1) are generated there.
  --client-ca FILE   require a client certificate signed by this CA on the webhook endpoints (mTLS)
  --drain-delay N    seconds between SIGTERM (readiness fails) and closing the listener (default ${serveDefaults.drainDelaySeconds})`,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'cert-dir': { type: 'string' },
    contract: { type: 'string', multiple: true },
    'client-ca': { type: 'string' },
    'admission-body-limit': { type: 'string' },
    'conversion-body-limit': { type: 'string' },
    'drain-delay': { type: 'string' },
    'log-level': { type: 'string' },
  },
  async run(values, io) {
    const port = positiveInteger(values, 'port', serveDefaults.port, { allowZero: true });
    const certDir = resolve(io.cwd, stringOption(values, 'cert-dir') ?? serveDefaults.certDir);
    const clientCa = stringOption(values, 'client-ca');
    const logger = createLogger({ level: stringOption(values, 'log-level') ?? serveDefaults.logLevel });
    const registry = await loadRegistry(stringList(values, 'contract'), io.cwd);

    if (!(await hasServingCert(certDir))) {
      const made = await writeCertDir(certDir, {
        dnsNames: [...developmentCertificate.dnsNames],
        ipAddresses: [...developmentCertificate.ipAddresses],
        days: developmentCertificate.days,
      });
      logger.warn({ certDir, caCert: made.files.caCert }, 'no serving certificate found: generated a development certificate (for localhost and 127.0.0.1 only)');
    }

    const server = await startServer({
      port,
      ...(stringOption(values, 'host') ? { host: stringOption(values, 'host')! } : {}),
      certDir,
      ...(clientCa ? { clientCaFile: resolve(io.cwd, clientCa) } : {}),
      registry,
      logger,
      limits: {
        admissionBytes: positiveInteger(values, 'admission-body-limit', serveDefaults.admissionBodyBytes),
        conversionBytes: positiveInteger(values, 'conversion-body-limit', serveDefaults.conversionBodyBytes),
      },
      drainDelayMs: positiveInteger(values, 'drain-delay', serveDefaults.drainDelaySeconds, { allowZero: true }) * 1000,
    });
    const kinds = registry.contracts.map((c) => `${c.contract.identity.plural}.${c.contract.identity.group}`);
    logger.info({ port: server.port, certDir, contracts: kinds, mTLS: clientCa !== undefined }, 'crdgate is serving');

    const signal = await io.waitForStop();
    logger.info({ signal }, 'shutting down: readiness fails now, in-flight requests finish');
    await server.shutdown();
    logger.info('stopped');
    logger.flush();
    return 0;
  },
};
