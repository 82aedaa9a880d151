import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ProtocolError, protocolErrorBody } from '../errors.ts';

/**
 * The HTTP half of the protocol: only `application/json` (415 otherwise), at most `limitBytes` (413, decided from
 * Content-Length before reading when it is declared), valid JSON (400). What the body means is the handlers'
 * business. Hand-written rather than body-parser: on the admission hot path body-parser cost twice the JSON.parse
 * it wraps (bench/ --profile), for charset and encoding cases the API server never sends.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return function readJsonBody(req, _res, next) {
    const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') return next(new ProtocolError('CONTENT_TYPE_UNSUPPORTED', `got ${type ?? 'no content type'}`));
    const declared = Number(req.headers['content-length']);
    if (declared > limitBytes) return next(tooLarge(limitBytes));
    readBody(req, limitBytes).then(
      (text) => {
        try {
          req.body = JSON.parse(text);
        } catch (error) {
          return next(new ProtocolError('BODY_NOT_JSON', (error as Error).message));
        }
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

function readBody(req: Request, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', function collect(chunk: Buffer) {
      received += chunk.length;
      if (received > limitBytes) {
        req.removeListener('data', collect);
        // Stop buffering but let the rest drain, so the 413 can still be written on this connection.
        req.resume();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, received).toString('utf8')));
    req.on('aborted', () => reject(new ProtocolError('REVIEW_MALFORMED', 'the client aborted the request body')));
    req.on('error', reject);
  });
}

function tooLarge(limitBytes: number): ProtocolError {
  return new ProtocolError('BODY_TOO_LARGE', `the limit is ${limitBytes} bytes`);
}

/** Maps crdgate's ProtocolErrors to short JSON answers; anything else is a 500 that says nothing of its cause. */
export const protocolErrorHandler: ErrorRequestHandler = function protocolErrorHandler(error, _req, res, next) {
  if (res.headersSent) return next(error);
  if (error instanceof ProtocolError) {
    res.status(error.httpStatus).json(protocolErrorBody(error));
    return;
  }
  res.locals.failure = error;
  res.status(500).json({ error: { code: 'INTERNAL_ERROR', message: 'crdgate failed to answer this request' } });
};
