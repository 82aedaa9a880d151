import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { findFreePort } from '../../src/control-plane/free-port.ts';
import type { ProcessSample, ServerProcess } from '../server-process.ts';
import { withTimeout } from '../support/with-timeout.ts';

const readyTimeoutMs = 15_000;
const stopTimeoutMs = 10_000;
// Linux's USER_HZ, the unit of utime/stime in /proc/PID/stat; 100 on every architecture Node runs on.
const clockTicksPerSecond = 100;

/**
 * Starts the peer binary on a free 127.0.0.1 port with the certificate in certDir (tls.crt, tls.key) and waits
 * for its "ready" line. It is a Go process, so it is measured from /proc rather than over an IPC channel.
 */
export async function startPeerProcess(
  binaryPath: string,
  certDir: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const port = await findFreePort();
  const spawnedAt = performance.now();
  const child = spawn(binaryPath, ['--cert-dir', certDir, '--port', String(port)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('ready')) resolve();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`the peer exited before listening (code ${code}, signal ${signal}): ${stderr.trim()}`)),
      );
      child.once('error', reject);
    }),
    readyTimeoutMs,
    'the controller-runtime peer to listen',
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  const pid = child.pid!;
  const notNode = (what: string) => () => Promise.reject(new Error(`the peer is a Go process: ${what} does not apply`));
  return {
    pid,
    port,
    readyAfterMs: performance.now() - spawnedAt,
    sample: () => sampleFromProc(pid),
    startProfile: notNode('the V8 profiler'),
    stopProfile: notNode('the V8 profiler'),
    timeInServer: notNode('the Node http diagnostics channels'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** CPU time of all the process's threads and its RSS; heapTotalBytes is 0, there is no V8 heap. */
async function sampleFromProc(pid: number): Promise<ProcessSample> {
  const [stat, status] = await Promise.all([
    readFile(`/proc/${pid}/stat`, 'utf8'),
    readFile(`/proc/${pid}/status`, 'utf8'),
  ]);
  const atMs = performance.now();
  // Fields after the command name, which is in parentheses and may itself hold spaces: utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
  return { rssBytes: rssKiB * 1024, heapTotalBytes: 0, cpuMicros: (ticks * 1_000_000) / clockTicksPerSecond, atMs };
}
