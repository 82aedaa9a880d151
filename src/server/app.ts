import express, { type Express, type RequestHandler } from 'express';
import type { TLSSocket } from 'node:tls';
import {
  handleAdmissionReview,
  storedObjectToRead,
  type AdmissionOutcome,
  type AdmissionWebhook,
} from '../admission/handler.ts';
import type { StoredObjectReader } from '../kube/stored-object-reading.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { reviewConversion } from '../conversion/review-conversion.ts';
import { ProtocolError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { serveDefaults } from '../config.ts';
import { crdGateRoute, type CrdGate } from './crd-gate-route.ts';
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
  /**
   * Reads a custom object from the API server, for the only reviews that need one: /scale, whose Scale carries no
   * state. Without it such reviews are denied (nothing to read the state with).
   */
  readStoredObject?: StoredObjectReader;
  /** The CRD gate (`serve --crd-gate`): /crd-gate judges updates of CRDs. Without it, that path is not served. */
  crdGate?: CrdGate;
}

export const webhookEndpoints = ['validate', 'mutate', 'convert', 'crd-gate'] as const;
export type WebhookEndpoint = (typeof webhookEndpoints)[number];

/**
 * Where a client certificate is asked for when a client CA is given and no list is: kube-apiserver presents its
 * client certificate (from its admission configuration) to admission webhooks only, the CRD gate among them; its
 * conversion webhook client has no such configuration.
 */
export const defaultClientCaEndpoints: readonly WebhookEndpoint[] = ['validate', 'mutate', 'crd-gate'];

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
    app.post(
      `/${webhook}`,
      ...clientCertificate(webhook),
      jsonBody(limits.admissionBytes, inFlight),
      admissionRoute(webhook, registry, metrics, options.readStoredObject),
    );
  }
  if (options.crdGate)
    app.post(
      '/crd-gate',
      ...clientCertificate('crd-gate'),
      jsonBody(limits.admissionBytes, inFlight),
      crdGateRoute(options.crdGate, metrics),
    );
  app.post(
    '/convert',
    ...clientCertificate('convert'),
    jsonBody(limits.conversionBytes, inFlight),
    function convert(req, res) {
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
    },
  );

  app.get('/healthz', function healthz(_req, res) {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', function readyz(_req, res) {
    const reason = options.notReadyBecause();
    res
      .status(reason === undefined ? 200 : 503)
      .type('text/plain')
      .send(reason === undefined ? 'ok' : `not ready: ${reason}`);
  });
  app.get('/metrics', async function metricsRoute(_req, res) {
    for (const { contract, validators } of registry().contracts)
      metrics.validatorsCompiled.set(
        { crd: `${contract.identity.plural}.${contract.identity.group}` },
        validators.compiledVersions().length,
      );
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.use(function notFound(req, _res, next) {
    next(new ProtocolError('ROUTE_NOT_FOUND', `${req.method} ${req.path}`));
  });
  app.use(protocolErrorHandler);
  return app;
}

function admissionRoute(
  webhook: AdmissionWebhook,
  registry: () => ContractRegistry,
  metrics: ServerMetrics,
  readStoredObject: StoredObjectReader | undefined,
): RequestHandler {
  return function admit(req, res) {
    const send = (outcome: AdmissionOutcome) => {
      metrics.decisions.inc({ webhook, decision: outcome.summary.decision, code: outcome.summary.code });
      res.locals.summary = outcome.summary;
      res.locals.failure = outcome.failure;
      sendJson(res, outcome.httpStatus, outcome.body);
    };
    // The contracts of this request, also after the read: a reload in between does not change what decides it.
    const contracts = registry();
    const toRead = readStoredObject && storedObjectToRead(webhook, contracts, req.body);
    if (!toRead) return send(handleAdmissionReview(webhook, contracts, req.body));
    // The one wait of an admission request: a /scale review's object, read from the API server. The reader never
    // rejects; a failure is a reading the decision denies on.
    return readStoredObject(toRead).then((stored) =>
      send(handleAdmissionReview(webhook, contracts, req.body, { stored })),
    );
  };
}

const requireVerifiedClient: RequestHandler = function requireVerifiedClient(req, _res, next) {
  next((req.socket as TLSSocket).authorized ? undefined : new ProtocolError('CLIENT_CERTIFICATE_REQUIRED'));
};
