import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../../src/cli-runner.fixture.ts';
import { findFreePort } from '../../../src/control-plane/free-port.ts';
import {
  startManagedProcess,
  type ManagedProcess,
  type ProcessExit,
} from '../../../src/control-plane/managed-process.ts';
import { eventually } from '../../../src/local-loop/eventually.ts';

/**
 * `crdgate serve` as its own process, the way `npm start` runs it, so that it can be stopped, restarted and frozen
 * (SIGSTOP) under the API server while writes stream in. Always on the same port and certificate folder.
 */
export interface CrdgateProcess {
  port: number;
  certDir: string;
  /** The CA that signs the serving certificate: the caBundle the API server trusts. */
  ca: Buffer;
  start(): Promise<void>;
  /** SIGTERM (readiness fails, the listener closes), and waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as the OOM killer or a lost node ends it: no drain, no goodbye. Resolves with how it ended. */
  kill(): Promise<ProcessExit>;
  freeze(): void;
  resume(): void;
  /** `crdgate certs --out DIR` again: a new serving certificate from the same CA, picked up without a restart. */
  renewCertificate(): Promise<void>;
  /** The serial number of the certificate the server presents to a new connection now. */
  servingSerial(): Promise<string>;
}

const cli = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));

export async function createCrdgateProcess(extraArgs: string[] = []): Promise<CrdgateProcess> {
  const certDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-process-'));
  const certs = await runCli(certDir, 'certs', '--out', certDir);
  if (certs.code !== 0) throw new Error(`crdgate certs failed: ${certs.stderr}`);
  const ca = await readFile(join(certDir, 'ca.crt'));
  const port = await findFreePort();
  let current: ManagedProcess | undefined;
  let runs = 0;

  const ready = () =>
    new Promise<boolean>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/readyz', ca, agent: false, timeout: 2_000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end();
    });

  return {
    port,
    certDir,
    ca,
    async start() {
      runs++;
      current = startManagedProcess({
        name: 'crdgate',
        command: process.execPath,
        args: [
          cli,
          'serve',
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--cert-dir',
          certDir,
          '--drain-delay',
          '0',
          ...extraArgs,
        ],
        cwd: certDir,
        logFile: join(certDir, `crdgate-${runs}.log`),
      });
      const started = current;
      await eventually('crdgate to be ready', async () => {
        if (started.exit) throw new Error(`crdgate exited: ${await started.logTail()}`);
        return (await ready()) ? true : undefined;
      });
    },
    async stop() {
      await current?.stop(10_000);
    },
    async kill() {
      process.kill(current!.pid!, 'SIGKILL');
      return current!.exited;
    },
    freeze() {
      process.kill(current!.pid!, 'SIGSTOP');
    },
    resume() {
      process.kill(current!.pid!, 'SIGCONT');
    },
    async renewCertificate() {
      const renewed = await runCli(certDir, 'certs', '--out', certDir);
      if (renewed.code !== 0 || !renewed.stdout.includes('kept the CA'))
        throw new Error(`crdgate certs failed: ${renewed.stderr}`);
    },
    servingSerial: () =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
          resolve(socket.getPeerCertificate().serialNumber);
          socket.end();
        });
        socket.on('error', reject);
      }),
  };
}

/** Stops the process (resuming it first if frozen) and removes its folder. */
export async function removeCrdgateProcess(gate: CrdgateProcess): Promise<void> {
  try {
    gate.resume();
  } catch {
    // Not running: nothing to resume.
  }
  await gate.stop();
  await rm(gate.certDir, { recursive: true, force: true });
}
