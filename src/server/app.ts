import express, { type Express, type RequestHandler } from 'express';
import type { TLSSocket } from 'node:tls';
import { handleAdmissionReview, type AdmissionWebhook } from '../admission/handler.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { reviewConversion } from '../conversion/review-conversion.ts';
import { ProtocolError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { serveDefaults } from '../config.ts';
import { createInFlightBodies, jsonBody, protocolErrorHandler } from './body.ts';
import { sendJson } from './json-response.ts';
import type { ServerMetrics } from './metrics.ts';
import { observeRequests } from './request-log.ts';

export interface AppOptions {
  /** Read per request, so a server can be handed new contracts without restarting (`crdgate dev` reloads). */
  registry: () => ContractRegistry;
  metrics: ServerMetrics;
  logger: Logger;
  limits: { admissionBytes: number; conversionBytes: number; inFlightBytes?: number };
  /** Readiness beyond the app's own (certificates trusted, not shutting down): why not, or undefined when ready. */
  notReadyBecause: () => string | undefined;
  /** The webhook endpoints that require a verified client certificate (a client CA is configured); probes never do. */
  clientCertificateEndpoints: ReadonlySet<WebhookEndpoint>;
}

export const webhookEndpoints = ['validate', 'mutate', 'convert'] as const;
export type WebhookEndpoint = (typeof webhookEndpoints)[number];

/** The express shell: routing, body limits and the request log. Every decision is made by the pure handlers it calls. */
export function createApp(options: AppOptions): Express {
  const { registry, metrics, logger, limits } = options;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(observeRequests(metrics, logger));

  const inFlight = createInFlightBodies(
    Math.max(limits.inFlightBytes ?? serveDefaults.inFlightBodyBytes, limits.admissionBytes, limits.conversionBytes),
  );
  // Checked before the body is read: an unauthenticated client does not get to make crdgate parse 7 MiB.
  const clientCertificate = (endpoint: WebhookEndpoint): RequestHandler[] =>
    options.clientCertificateEndpoints.has(endpoint) ? [requireVerifiedClient] : [];
  for (const webhook of ['validate', 'mutate'] as const) {
    app.post(`/${webhook}`, ...clientCertificate(webhook), jsonBody(limits.admissionBytes, inFlight), admissionRoute(webhook, registry, metrics));
  }
  app.post('/convert', ...clientCertificate('convert'), jsonBody(limits.conversionBytes, inFlight), function convert(req, res) {
    const started = performance.now();
    const outcome = reviewConversion(req.body, registry());
    const result = outcome.status === 200 ? outcome.review.response.result : undefined;
    metrics.conversions.inc({ result: result?.status ?? 'Rejected' });
    res.locals.summary = {
      uid: outcome.status === 200 ? outcome.review.response.uid : undefined,
      objects: Array.isArray(req.body?.request?.objects) ? req.body.request.objects.length : undefined,
      result: result?.status ?? 'Rejected',
      ...(result?.status === 'Failed' ? { message: result.message } : {}),
      decideMs: Number((performance.now() - started).toFixed(3)),
    };
    sendJson(res, outcome.status, outcome.status === 200 ? outcome.review : { error: outcome.error });
  });

  app.get('/healthz', function healthz(_req, res) {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', function readyz(_req, res) {
    const reason = options.notReadyBecause();
    res.status(reason === undefined ? 200 : 503).type('text/plain').send(reason === undefined ? 'ok' : `not ready: ${reason}`);
  });
  app.get('/metrics', async function metricsRoute(_req, res) {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.use(function notFound(req, _res, next) {
    next(new ProtocolError('ROUTE_NOT_FOUND', `${req.method} ${req.path}`));
  });
  app.use(protocolErrorHandler);
  return app;
}

function admissionRoute(webhook: AdmissionWebhook, registry: () => ContractRegistry, metrics: ServerMetrics): RequestHandler {
  return function admit(req, res) {
    const outcome = handleAdmissionReview(webhook, registry(), req.body);
    metrics.decisions.inc({ webhook, decision: outcome.summary.decision, code: outcome.summary.code });
    res.locals.summary = outcome.summary;
    res.locals.failure = outcome.failure;
    sendJson(res, outcome.httpStatus, outcome.body);
  };
}

const requireVerifiedClient: RequestHandler = function requireVerifiedClient(req, _res, next) {
  next((req.socket as TLSSocket).authorized ? undefined : new ProtocolError('CLIENT_CERTIFICATE_REQUIRED'));
};
