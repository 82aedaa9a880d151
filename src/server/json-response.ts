import type { ServerResponse } from 'node:http';

/**
 * Answers with a body serialized once, into a Buffer, and the two headers a webhook client reads. express's
 * res.json()/res.send() parse and re-format the content type and look at caching headers on every call (bench/
 * --profile): work an API server's webhook call never needs, on the path every admission request takes.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': payload.length });
  res.end(payload);
}
