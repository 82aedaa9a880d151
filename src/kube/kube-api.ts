import { request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { StopRequested, untilStopped } from '../abort/stop-signal.ts';
import { KubeApiError, type KubeStatus } from './kube-api-error.ts';
import { KubeconfigError } from './kubeconfig-error.ts';
import type { ApiServerAccess } from './in-cluster-access.ts';

// The one KubeApiError, in its own module so that crdgate/testing's declarations need none of client-node's.
export { KubeApiError, type KubeStatus } from './kube-api-error.ts';

/**
 * The few calls the migration makes, as raw JSON. client-node's typed APIs serialize through models that drop
 * fields they do not know; a migration that writes objects back must send exactly what it read.
 */
export interface KubeApi {
  /** The API server's URL, for messages. */
  readonly server: string;
  /**
   * Resolves with a 2xx answer; rejects with a KubeApiError (any other status) or a KubeTransportError, or with
   * StopRequested as soon as `signal` is aborted (the request is abandoned, not waited for).
   */
  request(method: KubeMethod, path: string, options?: KubeRequestOptions): Promise<KubeResponse>;
}

/** A KubeApi that can also follow objects as they change. */
export interface KubeWatchApi extends KubeApi {
  /**
   * Opens a watch (`path` with watch=true and `query`) and hands each event to `onEvent` as it arrives. Resolves when
   * the server ends the stream (it does after a while: watch again from the last resourceVersion); rejects like
   * request() when the watch cannot be opened or the connection breaks. `onOpen` is called once the server has
   * accepted the watch (a 2xx answer), before any event: a quiet watch is a working one.
   */
  watch(
    path: string,
    query: Record<string, string>,
    onEvent: (event: WatchEvent) => void,
    signal?: AbortSignal,
    onOpen?: () => void,
  ): Promise<void>;
}

export type KubeMethod = 'GET' | 'PUT' | 'POST' | 'PATCH';

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}

export interface KubeRequestOptions {
  query?: Record<string, string>;
  body?: unknown;
  /** The body's media type: application/json unless a patch says which kind it is. */
  contentType?: 'application/json' | 'application/json-patch+json' | 'application/merge-patch+json';
  signal?: AbortSignal;
}

export interface KubeResponse {
  status: number;
  body: unknown;
}

/** No HTTP answer at all: refused or reset connection, TLS failure, timeout. */
export class KubeTransportError extends Error {
  override name = 'KubeTransportError';
}

export interface KubeApiOptions {
  /** Per request: a write that hangs longer is abandoned and, being idempotent, retried. */
  timeoutMs: number;
}

/** A kubeconfig's current context, authenticating each request through client-node. */
function accessThrough(kubeConfig: KubeConfig): ApiServerAccess {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new KubeconfigError({ problem: 'no-current-cluster' });
  return { server: cluster.server, authenticate: (options) => kubeConfig.applyToHTTPSOptions(options) };
}

/**
 * A KubeApi over the kubeconfig's current context, or the pod's service account (inClusterAccess). Authentication is
 * applied per request (through client-node for a kubeconfig), so tokens that rotate during a long run, exec plugins
 * and client certificates all keep working.
 */
export function createKubeApi(kubeConfig: KubeConfig | ApiServerAccess, { timeoutMs }: KubeApiOptions): KubeWatchApi {
  const access = 'authenticate' in kubeConfig ? kubeConfig : accessThrough(kubeConfig);
  const server = access.server.replace(/\/+$/, '');
  const secure = server.startsWith('https:');

  async function authenticated(method: KubeMethod, path: string, options: KubeRequestOptions, what: string) {
    const { signal } = options;
    if (signal?.aborted) throw new StopRequested(what);
    const url = new URL(server + path);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const contentType = options.contentType ?? 'application/json';
    const requestOptions: RequestOptions = {
      method,
      // The API server names the field manager of crdgate's writes after the user agent's first word.
      headers: {
        accept: 'application/json',
        'user-agent': 'crdgate',
        ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
      },
    };
    try {
      // An exec credential plugin can take its time: it is a wait like any other.
      await untilStopped(access.authenticate(requestOptions), signal, what);
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      throw new KubeconfigError({ problem: 'no-credentials', server, detail: (error as Error).message });
    }
    requestOptions.agent = keepingAlive(requestOptions.agent);
    return { url, payload, requestOptions };
  }

  // client-node hands out an https.Agent without keep-alive: every request paid a TLS handshake on a new
  // connection, and each closed connection's native memory lingered until a collection, so a migration's RSS grew
  // with the objects it wrote. The same TLS options on one keep-alive agent reuse the connections; credentials
  // stay per request (a rotating token), a proxy agent is left as it is.
  const keptAlive = new WeakMap<object, HttpsAgent>();
  function keepingAlive(agent: RequestOptions['agent']): RequestOptions['agent'] {
    if (
      !(agent instanceof HttpsAgent) ||
      agent.constructor !== HttpsAgent ||
      (agent as HttpsAgent & { keepAlive?: boolean }).keepAlive
    )
      return agent;
    let kept = keptAlive.get(agent);
    if (!kept) {
      // Idle connections close well before the API server's own idle timeout, so a reused one is never half-closed.
      kept = new HttpsAgent({ ...agent.options, keepAlive: true, timeout: 30_000 });
      keptAlive.set(agent, kept);
    }
    return kept;
  }

  async function send(method: KubeMethod, path: string, options: KubeRequestOptions = {}): Promise<KubeResponse> {
    const { signal } = options;
    const what = `${method} ${path}`;
    const { url, payload, requestOptions } = await authenticated(method, path, options, what);
    return new Promise<KubeResponse>((resolve, reject) => {
      if (signal?.aborted) return reject(new StopRequested(what));
      const call = (secure ? httpsRequest : httpRequest)(url, requestOptions, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) =>
          reject(signal?.aborted ? new StopRequested(what) : new KubeTransportError(`${what}: ${error.message}`)),
        );
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const body = parseJson(Buffer.concat(chunks));
          if (status >= 200 && status < 300) resolve({ status, body });
          else reject(new KubeApiError(status, asStatus(body), response.headers, what));
        });
      });
      call.setTimeout(timeoutMs, () =>
        call.destroy(new KubeTransportError(`${what}: no answer within ${timeoutMs / 1000} s`)),
      );
      failOnErrorOrAbort(call, signal, what, reject);
      call.end(payload);
    });
  }

  async function watch(
    path: string,
    query: Record<string, string>,
    onEvent: (event: WatchEvent) => void,
    signal?: AbortSignal,
    onOpen?: () => void,
  ): Promise<void> {
    const what = `WATCH ${path}`;
    const { url, requestOptions } = await authenticated(
      'GET',
      path,
      { query: { ...query, watch: 'true' }, ...(signal ? { signal } : {}) },
      what,
    );
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new StopRequested(what));
      const call = (secure ? httpsRequest : httpRequest)(url, requestOptions, (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            reject(new KubeApiError(status, asStatus(parseJson(Buffer.concat(chunks))), response.headers, what)),
          );
          return;
        }
        onOpen?.();
        // One JSON event per line; a line may arrive in pieces.
        let pending = '';
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          pending += text;
          let newline: number;
          while ((newline = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1);
            if (line === '') continue;
            let event: WatchEvent;
            try {
              event = JSON.parse(line) as WatchEvent;
            } catch {
              call.destroy(
                new KubeTransportError(`${what}: the server sent a line that is not JSON: ${line.slice(0, 200)}`),
              );
              return;
            }
            onEvent(event);
          }
        });
        response.on('error', (error) =>
          reject(signal?.aborted ? new StopRequested(what) : new KubeTransportError(`${what}: ${error.message}`)),
        );
        response.on('end', () => resolve());
      });
      // A watch is quiet for as long as nothing changes: only a dead connection ends it, which TCP keepalive finds.
      call.on('socket', (socket) => socket.setKeepAlive(true, 30_000));
      failOnErrorOrAbort(call, signal, what, reject);
      call.end();
    });
  }

  return { server, request: send, watch };
}

/**
 * A request that fails rejects with a KubeTransportError, or with StopRequested once `signal` aborts; aborting
 * destroys the request at once, however long its timeout: the answer no longer matters.
 */
function failOnErrorOrAbort(
  call: ClientRequest,
  signal: AbortSignal | undefined,
  what: string,
  reject: (error: Error) => void,
): void {
  call.on('error', (error) => {
    if (signal?.aborted) reject(new StopRequested(what));
    else
      reject(
        error instanceof KubeTransportError ? error : new KubeTransportError(`${what}: ${describeSocketError(error)}`),
      );
  });
  const onAbort = () => call.destroy(new StopRequested(what));
  signal?.addEventListener('abort', onAbort, { once: true });
  call.on('close', () => signal?.removeEventListener('abort', onAbort));
}

/**
 * How a failed call goes into a log line: the API server's answer or the transport's failure in one message (a
 * stack trace says nothing about a 403 met every few seconds); anything else, as an error with its stack.
 */
export function logFieldsOf(error: unknown): Record<string, unknown> {
  if (error instanceof KubeApiError) return { reason: error.message, code: error.code };
  if (error instanceof KubeTransportError || error instanceof KubeconfigError) return { reason: error.message };
  return { err: error };
}

function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return bytes.toString('utf8').slice(0, 500);
  }
}

function asStatus(body: unknown): KubeStatus | undefined {
  if (typeof body === 'string') return { message: body };
  return typeof body === 'object' && body !== null ? (body as KubeStatus) : undefined;
}

function describeSocketError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
}
