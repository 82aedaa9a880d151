import { request } from 'node:https';

/** Whom a GET trusts (the CA) and, for an API server that asks, which client certificate it presents. */
export interface TlsClient {
  ca: string;
  cert?: string;
  key?: string;
}

const timeoutMs = 5_000;

/**
 * One GET over TLS on a connection of its own, for readiness probes and small reads of local servers.
 * fetch cannot present a client certificate without an extra dispatcher package, so node:https.
 */
export function httpsGet(url: string, tls: TlsClient): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs / 1000} s: GET ${url}`)));
    req.on('error', reject);
    req.end();
  });
}
