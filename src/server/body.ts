import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ProtocolError, protocolErrorBody } from '../errors.ts';
import { sendJson } from './json-response.ts';

/**
 * The HTTP half of the protocol: only `application/json` (415 otherwise), at most `limitBytes` (413, decided from
 * Content-Length before reading when it is declared), valid JSON (400). What the body means is the handlers'
 * business. Hand-written rather than body-parser: on the admission hot path body-parser cost twice the JSON.parse
 * it wraps (bench/ --profile), for charset and encoding cases the API server never sends.
 */
export function jsonBody(
  limitBytes: number,
  inFlight: InFlightBodies,
  maxValues: number = maxJsonValues,
): RequestHandler {
  return function readJsonBody(req, _res, next) {
    const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      return next(new ProtocolError('CONTENT_TYPE_UNSUPPORTED', `got ${type ?? 'no content type'}`));
    const declared = Number(req.headers['content-length']);
    if (declared > limitBytes) return next(tooLarge(limitBytes));
    readBody(req, limitBytes, inFlight).then(
      (bytes) => {
        // Parsing costs memory per value, not per byte: 7 MiB of `{},` are 2.3 million objects (hundreds of MiB).
        if (valueCountAbove(bytes, maxValues)) {
          return next(new ProtocolError('BODY_TOO_MANY_VALUES', `more than ${maxValues} (counting every {, [ and ,)`));
        }
        try {
          req.body = JSON.parse(bytes.toString('utf8'));
        } catch (error) {
          return next(new ProtocolError('BODY_NOT_JSON', (error as Error).message));
        }
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

/**
 * At most this many JSON values are parsed per request, which bounds the memory a request can take whatever its
 * shape. Far above any real review: a page of 500 objects of 2,000 values each.
 */
export const maxJsonValues = 1_000_000;

/**
 * Whether the body may hold more than `max` values, by counting the bytes that start or separate them. Counts in
 * strings too (an over-estimate), so it is conservative only for bodies of absurd shape.
 */
function valueCountAbove(bytes: Buffer, max: number): boolean {
  if (bytes.length <= max) return false;
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x2c || byte === 0x7b || byte === 0x5b) {
      count++;
      if (count > max) return true;
    }
  }
  return false;
}

/**
 * The bytes of all request bodies being read at once, shared by every endpoint: memory outside the JavaScript heap
 * that the heap limit does not bound, and that concurrent clients could otherwise multiply.
 */
export interface InFlightBodies {
  reserve(bytes: number): boolean;
  release(bytes: number): void;
}

export function createInFlightBodies(maxBytes: number): InFlightBodies {
  let reserved = 0;
  return {
    reserve(bytes) {
      if (reserved + bytes > maxBytes) return false;
      reserved += bytes;
      return true;
    },
    release(bytes) {
      reserved -= bytes;
    },
  };
}

function readBody(req: Request, limitBytes: number, inFlight: InFlightBodies): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // Bytes are held from the first chunk until the body is complete; parsing copies them into the heap.
    const stop = (error: ProtocolError) => {
      req.removeListener('data', collect);
      inFlight.release(received);
      received = 0;
      // Stop buffering but let the rest drain, so the error can still be written on this connection.
      req.resume();
      reject(error);
    };
    function collect(chunk: Buffer) {
      if (received + chunk.length > limitBytes) return stop(tooLarge(limitBytes));
      if (!inFlight.reserve(chunk.length))
        return stop(new ProtocolError('SERVER_BUSY', 'too many request bytes in flight'));
      received += chunk.length;
      chunks.push(chunk);
    }
    req.on('data', collect);
    req.on('end', () => {
      inFlight.release(received);
      // A review of a few KiB arrives as one chunk: no copy then.
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    });
    req.on('aborted', () => stop(new ProtocolError('REVIEW_MALFORMED', 'the client aborted the request body')));
    req.on('error', (error) => {
      inFlight.release(received);
      received = 0;
      reject(error);
    });
  });
}

function tooLarge(limitBytes: number): ProtocolError {
  return new ProtocolError('BODY_TOO_LARGE', `the limit is ${limitBytes} bytes`);
}

/** Maps crdgate's ProtocolErrors to short JSON answers; anything else is a 500 that says nothing of its cause. */
export const protocolErrorHandler: ErrorRequestHandler = function protocolErrorHandler(error, _req, res, next) {
  if (res.headersSent) return next(error);
  if (error instanceof ProtocolError) {
    res.locals.summary = { code: error.code };
    sendJson(res, error.httpStatus, protocolErrorBody(error));
    return;
  }
  res.locals.failure = error;
  sendJson(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'crdgate failed to answer this request' } });
};
