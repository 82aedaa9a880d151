import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ProtocolError, protocolErrorBody } from '../errors.ts';

/**
 * The HTTP half of the protocol: only `application/json` (415 otherwise), at most `limit` bytes (413), valid JSON
 * (400). What the body means is the handlers' business.
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  return [requireJsonContentType, express.json({ limit: limitBytes, type: () => true, strict: false })];
}

const requireJsonContentType: RequestHandler = function requireJsonContentType(req, _res, next) {
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  next(type === 'application/json' ? undefined : new ProtocolError('CONTENT_TYPE_UNSUPPORTED', `got ${type ?? 'no content type'}`));
};

/** Maps body-parser's failures and crdgate's ProtocolErrors to short JSON answers; anything else is a 500. */
export const protocolErrorHandler: ErrorRequestHandler = function protocolErrorHandler(error, _req, res, next) {
  if (res.headersSent) return next(error);
  const protocolError = toProtocolError(error);
  res.locals.failure = protocolError ? undefined : error;
  if (protocolError) res.status(protocolError.httpStatus).json(protocolErrorBody(protocolError));
  else res.status(500).json({ error: { code: 'INTERNAL_ERROR', message: 'crdgate failed to answer this request' } });
};

function toProtocolError(error: unknown): ProtocolError | undefined {
  if (error instanceof ProtocolError) return error;
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') {
    const limit = (error as { limit?: number }).limit;
    return new ProtocolError('BODY_TOO_LARGE', limit !== undefined ? `the limit is ${limit} bytes` : undefined);
  }
  if (type === 'entity.parse.failed') return new ProtocolError('BODY_NOT_JSON', (error as Error).message);
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ProtocolError('REVIEW_MALFORMED', (error as Error).message);
  }
  return undefined;
}
