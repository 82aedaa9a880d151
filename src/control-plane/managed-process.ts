import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface ManagedProcess {
  readonly name: string;
  /** The command's own pid (setpriv execs it, so there is no wrapper process in between). */
  readonly pid: number | undefined;
  readonly logFile: string;
  /** Set once the process has exited (or failed to start). */
  readonly exit: ProcessExit | undefined;
  readonly exited: Promise<ProcessExit>;
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone. Idempotent. */
  stop(graceMs: number): Promise<void>;
  /** The end of the process's combined stdout/stderr, for error messages. */
  logTail(maxBytes?: number): Promise<string>;
}

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** stdout and stderr are appended here, never to the test's own output. */
  logFile: string;
  /** Variables set for the process on top of this one's environment. */
  env?: Record<string, string>;
}

// util-linux's setpriv sets PR_SET_PDEATHSIG and then execs the command (same pid), so the
// kernel kills the child when we die, even by SIGKILL or a crash where no 'exit' handler runs.
// The signal is tied to the thread that spawned the child: the vitest main process, or a forked
// test worker, both of which spawn from their main thread.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => process.platform === 'linux' && existsSync(path));

export function startManagedProcess(opts: ManagedProcessOptions): ManagedProcess {
  const logFd = openSync(opts.logFile, 'a');
  const [command, args] = SETPRIV
    ? [SETPRIV, ['--pdeathsig', 'KILL', '--', opts.command, ...opts.args]]
    : [opts.command, opts.args];
  const child = spawn(command, args, {
    cwd: opts.cwd,
    stdio: ['ignore', logFd, logFd],
    ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
  });
  closeSync(logFd); // the child holds its own copy

  // Last resort for a normal exit of node (process.exit, end of the event loop) without stop().
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let exit: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    const settle = (result: ProcessExit): void => {
      if (exit) return;
      exit = result;
      process.off('exit', killOnExit);
      resolve(result);
    };
    child.on('exit', (code, signal) => settle({ code, signal }));
    child.on('error', (error) => settle({ code: null, signal: null, error }));
  });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs: number): Promise<void> => {
    stopping ??= (async () => {
      if (exit) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const gracePeriod = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)));
      const outcome = await Promise.race([exited, gracePeriod]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        child.kill('SIGKILL');
        await exited;
      }
    })();
    return stopping;
  };

  return {
    name: opts.name,
    pid: child.pid,
    logFile: opts.logFile,
    get exit() {
      return exit;
    },
    exited,
    stop,
    logTail: (maxBytes = 4000) => readTail(opts.logFile, maxBytes),
  };
}

export function describeExit(exit: ProcessExit): string {
  if (exit.error) return `failed to start: ${exit.error.message}`;
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

async function readTail(path: string, maxBytes: number): Promise<string> {
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const length = Math.min(size, maxBytes);
      const buffer = Buffer.alloc(length);
      await file.read(buffer, 0, length, size - length);
      return buffer.toString('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    return `(cannot read ${path}: ${(error as Error).message})`;
  }
}

const POLL_INTERVAL_MS = 100;

/**
 * Polls `probe` until it answers true. Fails at once, with the end of the process's output, when the process exits
 * first, and after timeoutMs with what the probe last saw.
 */
export async function waitUntilReady(
  child: ManagedProcess,
  what: string,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer yet';
  for (;;) {
    if (child.exit) {
      throw new Error(
        `${child.name} ${describeExit(child.exit)} before ${what} succeeded; end of its output:\n${await child.logTail()}`,
      );
    }
    try {
      if (await probe()) return;
      lastProblem = 'not ready';
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${child.name} did not answer ${what} within ${timeoutMs / 1000} s (last: ${lastProblem}); end of its output:\n${await child.logTail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}
