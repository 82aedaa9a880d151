import type { Request, RequestHandler, Response } from 'express';
import type { Level } from 'pino';
import type { Logger } from '../log.ts';
import type { ServerMetrics } from './metrics.ts';

/** What a route tells the request log about its answer (res.locals.summary); nothing of the object's body. */
export interface RequestSummary {
  decision?: 'allowed' | 'denied' | 'rejected';
  /** Admission: the sanitized warnings sent back. */
  warnings?: readonly string[];
  /** Conversion: Success or Failed (Rejected for a body that is not a ConversionReview). */
  result?: string;
  [field: string]: unknown;
}

/**
 * The level of a request's log line, as controller-runtime's webhooks log: whatever someone may have to act on
 * (a denial, a warning, a failed conversion, a request refused by the protocol layer) at info; an exception inside
 * crdgate at error; an allowed decision or a successful conversion with nothing to say at debug, so a busy cluster's
 * log stays readable and the line costs nothing unless asked for. Metrics count every request whatever the level.
 */
export function requestLogLevel(status: number, summary: RequestSummary | undefined, failure: unknown): Level {
  if (failure !== undefined) return 'error';
  if (status >= 400) return 'info';
  if (summary?.decision === 'denied') return 'info';
  if (summary?.warnings !== undefined && summary.warnings.length > 0) return 'info';
  if (summary?.result !== undefined && summary.result !== 'Success') return 'info';
  return 'debug';
}

const probes = new Set(['/healthz', '/readyz', '/metrics']);
const knownEndpoints = new Set(['/validate', '/mutate', '/convert', ...probes]);

/**
 * One metrics sample per request, and a log line at the level requestLogLevel picks, written when the response is
 * finished. Probes and scrapes are counted but never logged: kubelet and Prometheus call them every few seconds.
 */
export function observeRequests(metrics: ServerMetrics, logger: Logger): RequestHandler {
  return function observeRequest(req: Request, res: Response, next) {
    const started = process.hrtime.bigint();
    res.on('finish', function recordRequest() {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const endpoint = knownEndpoints.has(req.path) ? req.path : 'other';
      metrics.requests.inc({ endpoint, code: String(res.statusCode) });
      metrics.latency.observe({ endpoint }, seconds);
      if (probes.has(endpoint)) return;
      const summary = res.locals.summary as RequestSummary | undefined;
      const failure: unknown = res.locals.failure;
      const level = requestLogLevel(res.statusCode, summary, failure);
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        latencyMs: Number((seconds * 1000).toFixed(3)),
        ...summary,
      };
      if (failure !== undefined) logger.error({ ...line, err: failure }, 'request failed inside crdgate');
      else logger[level](line, 'request');
    });
    next();
  };
}
