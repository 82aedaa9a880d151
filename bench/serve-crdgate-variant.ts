import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import type * as HandlerModule from '../src/admission/handler.ts';
import type * as ContractsModule from '../src/commands/contracts.ts';
import type * as ConfigModule from '../src/config.ts';
import type * as LogModule from '../src/log.ts';
import type * as AppModule from '../src/server/app.ts';
import type * as ExpressBornMessagesModule from '../src/server/express-born-messages.ts';
import type * as JsonResponseModule from '../src/server/json-response.ts';
import type * as MetricsModule from '../src/server/metrics.ts';
import { serveOnLoopback } from './serve-on-loopback.ts';
import { loadCrdgateModule } from './load-crdgate-module.ts';

// Child process: crdgate with layers taken away, one server per rung of a ladder from the bare server to the real
// one. Each rung's extra CPU per request is what that layer costs, measured, not inferred from a profile:
//   decision         node:https + JSON.parse + crdgate's decision (handleAdmissionReview) + JSON.stringify
//   express-quiet    crdgate's express app (createApp), pino silent, metrics that do nothing
//   express-metrics  the same with real prom-client metrics
// The last rung, everything (pino at info included), is serve-crdgate.ts.

export const variants = ['decision', 'express-quiet', 'express-metrics'] as const;
export type Variant = (typeof variants)[number];

async function serveVariant(variant: Variant, certDir: string, compiledSrcDir: string | undefined): Promise<void> {
  const load = (path: string) => loadCrdgateModule(compiledSrcDir, path);
  const { loadRegistry } = (await load('commands/contracts')) as typeof ContractsModule;
  const { serveDefaults } = (await load('config')) as typeof ConfigModule;
  const registry = await loadRegistry([], process.cwd());
  const [cert, key] = await Promise.all([readFile(join(certDir, 'tls.crt')), readFile(join(certDir, 'tls.key'))]);
  const tls = { cert, key, minVersion: 'TLSv1.2' as const, ALPNProtocols: ['http/1.1'] };

  let server: Server;
  if (variant === 'decision') {
    const { handleAdmissionReview } = (await load('admission/handler')) as typeof HandlerModule;
    // The answer is written as the real routes write it, so the next rung adds express and nothing else.
    const { sendJson } = (await load('server/json-response')) as typeof JsonResponseModule;
    server = createServer(tls, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const webhook = req.url === '/mutate' ? 'mutate' : 'validate';
        const outcome = handleAdmissionReview(webhook, registry, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        sendJson(res, outcome.httpStatus, outcome.body);
      });
    });
  } else {
    const { createApp } = (await load('server/app')) as typeof AppModule;
    const { createLogger } = (await load('log')) as typeof LogModule;
    const { createServerMetrics } = (await load('server/metrics')) as typeof MetricsModule;
    const app = createApp({
      registry: () => registry,
      metrics: variant === 'express-metrics' ? createServerMetrics() : metricsThatDoNothing(createServerMetrics()),
      logger: createLogger({ level: 'silent' }),
      limits: { admissionBytes: serveDefaults.admissionBodyBytes, conversionBytes: serveDefaults.conversionBodyBytes },
      notReadyBecause: () => undefined,
      clientCertificateEndpoints: new Set(),
    });
    const { expressBornMessages } = (await load('server/express-born-messages')) as typeof ExpressBornMessagesModule;
    server = createServer({ ...tls, ...expressBornMessages(app) }, app);
  }
  await serveOnLoopback(server);
}

function metricsThatDoNothing(real: MetricsModule.ServerMetrics): MetricsModule.ServerMetrics {
  const nothing = { inc: () => {}, observe: () => {} };
  return {
    ...real,
    requests: nothing,
    latency: nothing,
    decisions: nothing,
    conversions: nothing,
  } as unknown as MetricsModule.ServerMetrics;
}

if (import.meta.main) {
  const [variant, certDir, compiledSrcDir] = process.argv.slice(2);
  if (!variants.includes(variant as Variant) || !certDir)
    throw new Error(`usage: serve-crdgate-variant.ts ${variants.join('|')} CERT_DIR [COMPILED_SRC_DIR]`);
  await serveVariant(variant as Variant, certDir, compiledSrcDir);
}
