import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';

export interface ApiAnswer {
  status: number;
  body: Buffer;
  /** From the request's send to the last byte of the answer. */
  ms: number;
}

export interface ApiServerClient {
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiAnswer>;
  /** call, then the answer's JSON; any status but 2xx is an error naming the request. */
  json<T = unknown>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  close(): void;
}

interface KubeconfigFile {
  clusters: Array<{
    cluster: { server: string; 'certificate-authority-data'?: string; 'certificate-authority'?: string };
  }>;
  users: Array<{
    user: {
      'client-certificate-data'?: string;
      'client-key-data'?: string;
      'client-certificate'?: string;
      'client-key'?: string;
    };
  }>;
}

const requestTimeoutMs = 30_000;

/**
 * A keep-alive HTTPS client of kube-apiserver, as the kubeconfig's first cluster and user (a client certificate,
 * as startControlPlane writes it). node:https rather than client-node, so that what a timed request costs the
 * client is one JSON.stringify and one socket write, the same whatever the API server does with it.
 */
export function createApiServerClient(kubeconfigPath: string, maxSockets: number): ApiServerClient {
  const kubeconfig = parse(readFileSync(kubeconfigPath, 'utf8')) as KubeconfigFile;
  const cluster = kubeconfig.clusters[0]?.cluster;
  const user = kubeconfig.users[0]?.user;
  if (!cluster || !user) throw new Error(`${kubeconfigPath}: no cluster or no user`);
  const fromData = (data: string | undefined, file: string | undefined, what: string): Buffer => {
    if (data) return Buffer.from(data, 'base64');
    if (file) return readFileSync(file);
    throw new Error(`${kubeconfigPath}: no ${what}`);
  };
  const server = new URL(cluster.server);
  const agent = new Agent({
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: 'fifo',
    ca: fromData(cluster['certificate-authority-data'], cluster['certificate-authority'], 'certificate authority'),
    cert: fromData(user['client-certificate-data'], user['client-certificate'], 'client certificate'),
    key: fromData(user['client-key-data'], user['client-key'], 'client key'),
  });
  const call = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiAnswer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const started = performance.now();
      const req = request(
        {
          host: server.hostname,
          port: server.port,
          method,
          path,
          agent,
          headers: {
            accept: 'application/json',
            ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - started }),
          );
          res.on('error', reject);
        },
      );
      req.setTimeout(requestTimeoutMs, () =>
        req.destroy(new Error(`no answer to ${method} ${path} within ${requestTimeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    call,
    async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
      const answer = await call(method, path, body, contentType);
      if (answer.status < 200 || answer.status > 299)
        throw new Error(`${method} ${path}: HTTP ${answer.status}: ${answer.body.toString('utf8')}`);
      return JSON.parse(answer.body.toString('utf8')) as T;
    },
    close: () => agent.destroy(),
  };
}
