import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface Target {
  port: number;
  agent: Agent;
}

export interface PostAnswer {
  status: number;
  body: Buffer;
  /** The negotiated TLS version, to prove the pin held. */
  tlsProtocol: string | null;
}

const requestTimeoutMs = 10_000;

/** Keep-alive connections pinned to TLS 1.3, like the API server's long-lived webhook connections. */
export function createKeepAliveAgent(ca: Buffer, maxSockets: number): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: 'fifo',
    ca,
    minVersion: 'TLSv1.3',
    maxVersion: 'TLSv1.3',
  });
}

export function post(target: Target, path: string, body: Buffer): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path,
        method: 'POST',
        agent: target.agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        // Read now: once the body ends, a keep-alive socket goes back to the agent and res.socket is gone.
        const tlsProtocol = (res.socket as TLSSocket).getProtocol();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), tlsProtocol });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(requestTimeoutMs, () =>
      req.destroy(new Error(`no answer to POST ${path} within ${requestTimeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}
