import { spawn } from 'node:child_process';
import { pollUntilReady, servingPort, stopChild } from '../startup-to-ready.ts';
import { cpuSecondsOf, descendants, statusBytes } from '../support/process-tree.ts';
import { withTimeout } from '../support/with-timeout.ts';
import { withServiceAccountMounted } from '../../test/e2e/support/service-account-mount.ts';

// One `crdgate serve --contract MODULE...` process, started as the image starts it (the crdgate command, the
// contracts' modules named from the project's folder), timed from spawn to its first 200 on /readyz.

export interface ContractServerOptions {
  /** crdgate's command: bin.js of a compiled build, or src/bin.ts. */
  binPath: string;
  /** The --contract modules; none serves the built-in example. */
  modules: string[];
  /** The working directory, as /app is the image's. */
  cwd: string;
  certDir: string;
  ca: Buffer;
  env: Record<string, string>;
  /** How long compiling the contracts may take before the run is called failed. */
  readyTimeoutMs: number;
  /**
   * A folder to bind where a pod has its service account's (in a mount namespace of the process's own: root and
   * `unshare` needed), so that crdgate reaches the API server as a pod does, without a kubeconfig.
   */
  serviceAccountDir?: string;
}

export interface ResourceSample {
  /** VmRSS of the server and any process below it (the native engine, where it runs). */
  rssBytes: number;
  /** VmHWM of the same: the most each has held since it started (their sum bounds the tree's peak from above). */
  peakRssBytes: number;
  /** User and system time of the same processes since they started. */
  cpuSeconds: number;
}

export interface ContractServer {
  pid: number;
  port: number;
  /** Spawn to the first 200 on /readyz. */
  readyMs: number;
  sample(): ResourceSample;
  /** How the process ended (its signal or exit code), once it has, within `waitMs`; undefined while it runs. */
  exitWithin(waitMs: number): Promise<string | undefined>;
  stop(): Promise<void>;
}

export async function startContractServer(options: ContractServerOptions): Promise<ContractServer> {
  const spawnedAt = performance.now();
  const contracts = options.modules.flatMap((module) => ['--contract', module]);
  const command = [
    process.execPath,
    ...[options.binPath, 'serve', ...contracts, '--port', '0', '--host', '127.0.0.1'],
    ...['--cert-dir', options.certDir, '--drain-delay', '0'],
  ];
  // unshare execs the shell, which execs node: the child's pid is the server's.
  const [file, ...args] =
    options.serviceAccountDir === undefined ? command : withServiceAccountMounted(options.serviceAccountDir, command);
  const child = spawn(file!, args, {
    cwd: options.cwd,
    // stdout is read for the port, then drained: its request log lines cost the server what they cost in a pod.
    stdio: ['ignore', 'pipe', 'inherit'],
    env: options.env,
  });
  child.stdout!.resume();
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = signal ?? `code ${code}`;
      resolve();
    }),
  );
  const deadline = spawnedAt + options.readyTimeoutMs;
  try {
    const port = await withTimeout(servingPort(child), options.readyTimeoutMs, 'crdgate serve to log its port');
    await withTimeout(
      pollUntilReady(port, options.ca, deadline),
      Math.max(deadline - performance.now(), 1),
      'crdgate serve to be ready',
    );
    const readyMs = performance.now() - spawnedAt;
    const pid = child.pid!;
    const tree = () => [pid, ...descendants(pid)];
    return {
      pid,
      port,
      readyMs,
      sample: () => {
        const pids = tree();
        return {
          rssBytes: sum(pids.map((each) => statusBytes(each, 'VmRSS'))),
          peakRssBytes: sum(pids.map((each) => statusBytes(each, 'VmHWM'))),
          cpuSeconds: sum(pids.map(cpuSecondsOf)),
        };
      },
      exitWithin: async (waitMs) => {
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, waitMs))]);
        return exit;
      },
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
