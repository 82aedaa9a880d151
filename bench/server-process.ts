import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DoneMessage, ParentRequest, ReadyMessage, SampleMessage } from './child-channel.ts';
import type { TailStats } from './tail-monitor.ts';
import { withTimeout } from './support/with-timeout.ts';

export interface ProcessSample {
  rssBytes: number;
  heapTotalBytes: number;
  cpuMicros: number;
  atMs: number;
  /** Event-loop delay and GC pauses since the previous sample (Node servers only). */
  tail?: TailStats;
}

export interface ServerProcess {
  pid: number;
  port: number;
  /** Milliseconds from the child's process start to listening, by its own clock. */
  readyAfterMs: number;
  sample(): Promise<ProcessSample>;
  startProfile(): Promise<void>;
  /** Ends the profile begun by startProfile and writes it (a .cpuprofile) to path. */
  stopProfile(path: string): Promise<void>;
  /** From now on, time each request in the server (the samples' tail.inServer; Node servers only). */
  timeInServer(): Promise<void>;
  /** Graceful stop, then SIGKILL if it does not exit in time. */
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  execArgv?: string[];
  env?: Record<string, string>;
}

const readyTimeoutMs = 15_000;
const answerTimeoutMs = 10_000;
const stopTimeoutMs = 10_000;

type Answer = SampleMessage | DoneMessage;

/** Forks one of the serve-*.ts scripts with this very Node binary and waits for its port. */
export async function startServerProcess(
  script: URL,
  args: string[],
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const child = fork(fileURLToPath(script), args, {
    execPath: process.execPath,
    execArgv: options.execArgv ?? [],
    env: { ...process.env, ...options.env },
    // stdout ignored: crdgate's request log lines cost it what they cost in a pod, without flooding this terminal.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await waitForReady(child, script);

  let nextId = 0;
  const pending = new Map<number, (answer: Answer) => void>();
  child.on('message', (message: Answer) => {
    if (message.type !== 'sample' && message.type !== 'done') return;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const ask = <T extends Answer>(request: (id: number) => ParentRequest, what: string): Promise<T> =>
    withTimeout(
      new Promise<T>((resolve) => {
        const id = nextId++;
        pending.set(id, (answer) => resolve(answer as T));
        child.send(request(id));
      }),
      answerTimeoutMs,
      what,
    );
  const perform = async (request: (id: number) => ParentRequest, what: string) => {
    const answer = await ask<DoneMessage>(request, what);
    if (answer.error) throw new Error(`${what}: ${answer.error}`);
  };

  return {
    pid: child.pid!,
    port: ready.port,
    readyAfterMs: ready.sinceProcessStartMs,
    sample: () => ask<SampleMessage>((id) => ({ type: 'sample', id }), 'a sample from the server process'),
    startProfile: () => perform((id) => ({ type: 'profile-start', id }), 'the server process to start profiling'),
    stopProfile: (path) =>
      perform((id) => ({ type: 'profile-stop', id, path }), 'the server process to write its profile'),
    timeInServer: () => perform((id) => ({ type: 'time-in-server', id }), 'the server process to time its requests'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'stop' } satisfies ParentRequest);
      const killer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

function waitForReady(child: ChildProcess, script: URL): Promise<ReadyMessage> {
  return withTimeout(
    new Promise<ReadyMessage>((resolve, reject) => {
      child.on('message', (message: ReadyMessage) => {
        if (message.type === 'ready') resolve(message);
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`${script.pathname} exited before listening (code ${code}, signal ${signal})`)),
      );
      child.once('error', reject);
    }),
    readyTimeoutMs,
    `${script.pathname} to listen`,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
}
