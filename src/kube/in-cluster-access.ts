import { existsSync, readFileSync } from 'node:fs';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { KubeconfigError } from './kubeconfig-error.ts';

/** Where the kubelet mounts a pod's service account: its token, the cluster's CA and its namespace. */
export const serviceAccountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

/** How long a token read from the file is used before it is read again, as client-go and client-node do. */
const tokenRereadMs = 60_000;

/**
 * Where the API server is and how one request to it is authenticated. A kubeconfig's current context gives both
 * through client-node; a pod's own service account gives them without it (inClusterAccess).
 */
export interface ApiServerAccess {
  readonly server: string;
  /** Adds the trust, the credentials and the connection to one request's options. */
  authenticate(options: RequestOptions): Promise<void>;
}

export interface InClusterOptions {
  env?: NodeJS.ProcessEnv;
  /** The service account's folder (serviceAccountPath). */
  root?: string;
  now?: () => number;
}

/**
 * The pod's own service account, as client-go's rest.InClusterConfig and client-node's loadFromCluster read it: the
 * API server at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, trusted with the CA beside the token, the token read
 * again every minute (a projected token rotates). Undefined outside a pod (no token, or no service variables), where
 * a kubeconfig is loaded instead. Read without client-node, whose import alone holds about 64 MiB of a server's
 * resident memory (the crdgate process of the CRD gate idled at 165 MiB with it, 99 without a client).
 */
export function inClusterAccess(options: InClusterOptions = {}): ApiServerAccess | undefined {
  const { env = process.env, root = serviceAccountPath, now = Date.now } = options;
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  const tokenFile = join(root, 'token');
  if (!host || !port || !existsSync(tokenFile)) return undefined;
  // client-node's reading of the port: the API server's plain-HTTP ports (a proxy in front of it) are http.
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const server = `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  let ca: Buffer;
  try {
    ca = readFileSync(join(root, 'ca.crt'));
  } catch (error) {
    throw new KubeconfigError({ problem: 'unreadable', file: join(root, 'ca.crt'), detail: (error as Error).message });
  }
  // One keep-alive agent for every request: the same trust, no TLS handshake per call.
  const agent = scheme === 'https' ? new HttpsAgent({ ca, keepAlive: true, timeout: 30_000 }) : undefined;
  let token: { value: string; readAt: number } | undefined;
  return {
    server,
    async authenticate(request) {
      if (token === undefined || now() - token.readAt > tokenRereadMs)
        token = { value: readFileSync(tokenFile, 'utf8').trim(), readAt: now() };
      request.headers = { ...request.headers, authorization: `Bearer ${token.value}` };
      if (agent) request.agent = agent;
    },
  };
}
