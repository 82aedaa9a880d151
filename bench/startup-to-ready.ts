import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:https';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { percentile } from './support/percentile.ts';
import { withTimeout } from './support/with-timeout.ts';

export interface StartupResult {
  /** Which CLI was started: the compiled one (as in the image) or src/cli.ts (as `npm start`). */
  cli: string;
  /** Spawn of `node CLI serve` to its first 200 on /readyz, per run, as the kubelet's probe would see it. */
  runsMs: number[];
  medianMs: number;
  maxMs: number;
}

export const sourceCliPath = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const readyTimeoutMs = 15_000;
const pollEveryMs = 2;

export interface StartupOptions {
  cliPath: string;
  env: Record<string, string>;
  certDir: string;
  ca: Buffer;
  runs: number;
}

/** Starts the real CLI `runs` times, one after the other, and stops each with SIGTERM once it is ready. */
export async function measureStartup(options: StartupOptions): Promise<StartupResult> {
  const runsMs: number[] = [];
  for (let run = 0; run < options.runs; run++) runsMs.push(await startOnce(options));
  const sorted = [...runsMs].sort((a, b) => a - b);
  return { cli: options.cliPath, runsMs, medianMs: percentile(sorted, 50), maxMs: sorted.at(-1)! };
}

async function startOnce({ cliPath, env, certDir, ca }: StartupOptions): Promise<number> {
  const spawnedAt = performance.now();
  const child = spawn(
    process.execPath,
    [cliPath, 'serve', '--port', '0', '--host', '127.0.0.1', '--cert-dir', certDir, '--drain-delay', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    },
  );
  try {
    const port = await withTimeout(servingPort(child), readyTimeoutMs, 'crdgate serve to log its port');
    await withTimeout(
      pollUntilReady(port, ca, spawnedAt + readyTimeoutMs),
      readyTimeoutMs,
      'crdgate serve to be ready',
    );
    return performance.now() - spawnedAt;
  } finally {
    await stopChild(child);
  }
}

/** The port comes from the "crdgate is serving" log line: with --port 0 nothing else knows it. */
export function servingPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const entry = parseLogLine(line);
      if (entry.msg === 'crdgate is serving' && typeof entry.port === 'number') resolve(entry.port);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`crdgate serve exited (${signal ?? `code ${code}`}) before serving`)),
    );
  });
}

/** Polls /readyz every few milliseconds until it answers 200, or fails at the deadline (performance.now()). */
export async function pollUntilReady(port: number, ca: Buffer, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    if ((await readyzStatus(port, ca)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, pollEveryMs));
  }
  throw new Error('crdgate serve did not answer 200 on /readyz in time');
}

function parseLogLine(line: string): { msg?: string; port?: number } {
  try {
    return JSON.parse(line) as { msg?: string; port?: number };
  } catch {
    return {};
  }
}

function readyzStatus(port: number, ca: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/readyz', ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(1_000, () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** SIGTERM, then SIGKILL if the process has not exited within 5 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}
