import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import {
  describeExit,
  startManagedProcess,
  type ManagedProcess,
  type ProcessExit,
} from '../../../src/control-plane/managed-process.ts';
import { eventually } from '../../../src/local-loop/eventually.ts';
import { metricSum } from './api-server-metrics.ts';

/**
 * One replica of `crdgate serve --manage-certs`, run as its own process the way `npm start` runs it, with the pod
 * name a Deployment would give it ($POD_NAME, its Lease identity). It listens on a port of its own choosing
 * (--port 0), read from its "crdgate is serving" log line; its probes, metrics and certificate are read the way a
 * kubelet, Prometheus and the API server would: over HTTPS on that port.
 */
export interface CrdgateReplica {
  /** Its $POD_NAME: what the Lease's holderIdentity names when it leads. */
  identity: string;
  port: number;
  /** The GET /readyz status code (0 when it does not answer). */
  readyz(): Promise<number>;
  /** The GET /readyz answer, whose text says why a replica is not ready (status 0 when it does not answer). */
  readyzAnswer(): Promise<{ status: number; body: string }>;
  /** One scrape of its /metrics. */
  metrics(): Promise<string>;
  /** The certificate it presents to a new connection now. */
  servingCertificate(): Promise<X509Certificate>;
  /** Its JSON log lines so far. */
  logLines(): Promise<Record<string, unknown>[]>;
  /** The end of its output, for failure messages. */
  logTail(): Promise<string>;
  /** SIGKILL, as a lost node ends a pod: no drain, no Lease released. */
  kill(): Promise<ProcessExit>;
  /** SIGTERM; SIGKILL if it has not exited after 10 s. */
  stop(): Promise<void>;
  freeze(): void;
  resume(): void;
  readonly exited: boolean;
}

const bin = fileURLToPath(new URL('../../../src/bin.ts', import.meta.url));

/** Starts a replica and waits for the log line that names its port; it is not ready yet (see readyz()). */
export async function startCrdgateReplica(
  identity: string,
  serveArgs: readonly string[],
  logDir: string,
): Promise<CrdgateReplica> {
  const logFile = join(logDir, `${identity}.log`);
  // env sets the variable and execs node, so the pid stays the process's own (kill and freeze reach crdgate itself).
  const process_: ManagedProcess = startManagedProcess({
    name: identity,
    command: '/usr/bin/env',
    args: [`POD_NAME=${identity}`, process.execPath, bin, 'serve', ...serveArgs],
    cwd: logDir,
    logFile,
  });
  const logLines = async (): Promise<Record<string, unknown>[]> =>
    (await readFile(logFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as Record<string, unknown>];
        } catch {
          // The last line may be half written.
          return [];
        }
      });
  const exitedFirst = process_.exited.then(async (exit) => {
    throw new Error(`${identity} ${describeExit(exit)} before serving: ${await process_.logTail()}`);
  });
  const port = await Promise.race([
    exitedFirst,
    eventually(`${identity} to log "crdgate is serving"`, async () => {
      const serving = (await logLines()).find((line) => line['msg'] === 'crdgate is serving');
      return typeof serving?.['port'] === 'number' ? serving['port'] : undefined;
    }),
  ]);
  // Once serving, a later exit is for the tests to notice, not an unhandled rejection.
  exitedFirst.catch(() => {});

  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      // Certificates are checked where they are the point (servingCertificate); a probe does not verify them, as a
      // kubelet's HTTPS probe does not.
      const req = request(
        { host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false, timeout: 5_000 },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${identity}: GET ${path} timed out`)));
      req.on('error', reject);
      req.end();
    });

  return {
    identity,
    port,
    readyz: () =>
      get('/readyz').then(
        (response) => response.status,
        () => 0,
      ),
    readyzAnswer: () => get('/readyz').catch((error: unknown) => ({ status: 0, body: String(error) })),
    async metrics() {
      const response = await get('/metrics');
      if (response.status !== 200)
        throw new Error(`${identity}: GET /metrics answered ${response.status}: ${response.body.slice(0, 300)}`);
      return response.body;
    },
    servingCertificate: () =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          const raw = socket.getPeerCertificate().raw;
          socket.end();
          resolve(new X509Certificate(raw));
        });
        socket.on('error', reject);
      }),
    logLines,
    logTail: () => process_.logTail(),
    async kill() {
      process.kill(process_.pid!, 'SIGKILL');
      return process_.exited;
    },
    stop: () => process_.stop(10_000),
    freeze() {
      process.kill(process_.pid!, 'SIGSTOP');
    },
    resume() {
      process.kill(process_.pid!, 'SIGCONT');
    },
    get exited() {
      return process_.exit !== undefined;
    },
  };
}

/** A metric's value summed over replicas (a replica's samples whose labels include `labels`). */
export async function sumOverReplicas(
  replicas: readonly CrdgateReplica[],
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const scrapes = await Promise.all(replicas.filter((replica) => !replica.exited).map((replica) => replica.metrics()));
  return scrapes.reduce((sum, scrape) => sum + metricSum(scrape, name, labels), 0);
}
