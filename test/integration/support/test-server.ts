import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpsRequest, type Agent, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { writeCertDir } from '../../../src/certs/cert-dir.ts';
import { loadRegistry } from '../../../src/commands/contracts.ts';
import { serveDefaults } from '../../../src/config.ts';
import { createLogger } from '../../../src/log.ts';
import { startServer, type RunningServer, type ServeOptions } from '../../../src/server/serve.ts';

export interface TestServer {
  running: RunningServer;
  port: number;
  certDir: string;
  ca: Buffer;
  logLines: () => Array<Record<string, unknown>>;
  post(path: string, body: unknown, options?: PostOptions): Promise<HttpAnswer>;
  get(path: string): Promise<HttpAnswer>;
  /** Starts a chunked body of `bytes` spaces and holds it open; finish() ends it (not JSON: answered 400). */
  holdOpen(path: string, bytes: number): { written: Promise<void>; finish: () => Promise<HttpAnswer> };
  stop(): Promise<void>;
}

export interface PostOptions {
  contentType?: string;
  /** Send this exact text instead of JSON-encoding the body. */
  raw?: string | Buffer;
  /** Send without Content-Length (Transfer-Encoding: chunked), so the server only learns the size by reading. */
  chunked?: boolean;
  tls?: Pick<RequestOptions, 'cert' | 'key' | 'ca'>;
  /** A keep-alive agent for many requests in a row; by default every request has a connection of its own. */
  agent?: Agent;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/** The real server, in-process, on a free 127.0.0.1 port, with freshly generated certificates and real TLS. */
export async function startTestServer(
  overrides: Partial<ServeOptions> & { logLevel?: string } = {},
): Promise<TestServer> {
  const { logLevel = 'debug', ...serveOverrides } = overrides;
  const certDir = await mkdtemp(join(tmpdir(), 'crdgate-it-'));
  await writeCertDir(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 1 });
  const ca = await readFile(join(certDir, 'ca.crt'));
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    certDir,
    registry: await loadRegistry([], process.cwd()),
    logger: createLogger({ level: logLevel, destination: sink }),
    limits: { admissionBytes: serveDefaults.admissionBodyBytes, conversionBytes: serveDefaults.conversionBodyBytes },
    drainDelayMs: 0,
    ...serveOverrides,
  });

  function send(
    method: string,
    path: string,
    payload: string | Buffer | undefined,
    headers: Record<string, string>,
    options: PostOptions = {},
  ): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: running.port,
          method,
          path,
          headers,
          ca,
          agent: options.agent ?? false,
          ...options.tls,
        },
        (res) => readAnswer(res, resolve),
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  return {
    running,
    port: running.port,
    certDir,
    ca,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    post: (path, body, options = {}) => {
      const payload = options.raw ?? JSON.stringify(body);
      const length: Record<string, string> = options.chunked
        ? { 'transfer-encoding': 'chunked' }
        : { 'content-length': String(Buffer.byteLength(payload)) };
      return send(
        'POST',
        path,
        payload,
        { 'content-type': options.contentType ?? 'application/json', ...length },
        options,
      );
    },
    get: (path) => send('GET', path, undefined, {}),
    holdOpen: (path, bytes) => {
      let answered: (answer: HttpAnswer) => void = () => {};
      const answer = new Promise<HttpAnswer>((resolve) => (answered = resolve));
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: running.port,
          method: 'POST',
          path,
          ca,
          agent: false,
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        },
        (res) => readAnswer(res, answered),
      );
      // Written, and given a moment to arrive, before anything else is sent.
      const written = new Promise<void>((resolve) => req.write(' '.repeat(bytes), () => setTimeout(resolve, 1000)));
      return {
        written,
        finish: () => {
          req.end();
          return answer;
        },
      };
    },
    stop: async () => {
      await running.shutdown();
      await rm(certDir, { recursive: true, force: true });
    },
  };
}

function readAnswer(res: IncomingMessage, resolve: (answer: HttpAnswer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
  });
}

export async function loadFixture(name: string): Promise<any> {
  return JSON.parse(await readFile(new URL(`../../fixtures/admission/${name}`, import.meta.url), 'utf8'));
}

export function decodePatch(response: { patch?: string }): any[] {
  return JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8'));
}
