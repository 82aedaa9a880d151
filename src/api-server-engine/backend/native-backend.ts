// The engine as a native process (go/serve_native.go), one per crdgate process, held by a worker thread
// (native-worker.ts). The caller's thread posts a request and sleeps on a shared word until the worker wakes it
// with the answer, so the engine's API stays synchronous (contractTester(...).check() is) at native speed. A
// process that ends or hangs fails the request it was answering with an error naming the engine, never a hang or
// an answer it did not give; the next call starts another.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { engineName, EngineFailedError, type EngineBackend, type Operation } from './engine-backend.ts';
import type { WorkerKill, WorkerMessage, WorkerRequest } from './native-messages.ts';

/** Beside this file: the worker as the sources have it (.ts, run by Node) or as compiled into dist/ (.js). */
const WORKER_URL = new URL(`./native-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface NativeBackendOptions {
  /** The engine's executable. */
  binary: string;
  /** How long an answer may take before the process counts as hung, killed, and the request failed. */
  answerTimeoutMs: number;
  /** Go's soft memory limit for the process (GOMEMLIMIT): it collects harder rather than grow past it. */
  memoryLimit: string;
  /** The process's standard error, a line at a time. */
  log: (line: string) => void;
}

/** The engine's process could not be run at all (not there, not executable, built for another machine). */
export class EngineUnrunnableError extends EngineFailedError {
  override name = 'EngineUnrunnableError';
}

export class NativeBackend implements EngineBackend {
  readonly kind = 'native';
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private readonly wake = new Int32Array(new SharedArrayBuffer(4));
  private starts = 0;
  private running = false;
  private nextId = 1;
  private pids = new Map<number, number>();

  private readonly options: NativeBackendOptions;

  constructor(options: NativeBackendOptions) {
    this.options = options;
  }

  start(): number {
    this.drain();
    if (this.running) return this.starts;
    if (this.worker === undefined) this.openWorker();
    this.starts += 1;
    this.running = true;
    return this.starts;
  }

  current(): number | undefined {
    this.drain();
    return this.running ? this.starts : undefined;
  }

  call(operation: Operation, handle: number, payload: Uint8Array, what: string): Uint8Array {
    const start = this.start();
    const id = this.nextId++;
    const request: WorkerRequest = { kind: 'request', start, id, operation, handle, payload };
    this.port!.postMessage(request);
    const deadline = Date.now() + this.options.answerTimeoutMs;
    for (;;) {
      Atomics.store(this.wake, 0, 0);
      const received = receiveMessageOnPort(this.port!) as { message: WorkerMessage } | undefined;
      if (received !== undefined) {
        const { message } = received;
        if (message.kind === 'answer' && message.id === id) return message.payload;
        if (message.kind === 'ended' && message.unanswered.includes(id)) throw this.failed(message, what);
        this.note(message);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        this.kill(start);
        // The thread may be what hangs: a new one holds the next process.
        this.closeWorker();
        throw new EngineFailedError(
          `${engineName(this.kind)} did not answer ${what} within ${this.options.answerTimeoutMs / 1000} s and was stopped (killed); the next request starts it again`,
        );
      }
      Atomics.wait(this.wake, 0, 0, left);
    }
  }

  memoryBytes(): number {
    const pid = this.pids.get(this.starts);
    if (!this.running || pid === undefined) return 0;
    try {
      // statm's second field: pages resident.
      const resident = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
      return resident * 4096;
    } catch {
      return 0;
    }
  }

  /** @internal the process of the start running now, for tests that stop or kill it. */
  pid(): number | undefined {
    this.drain();
    return this.running ? this.pids.get(this.starts) : undefined;
  }

  stop(): void {
    if (this.running) this.kill(this.starts);
  }

  private openWorker(): void {
    const { port1, port2 } = new MessageChannel();
    const env = { GOMEMLIMIT: this.options.memoryLimit };
    this.worker = new Worker(WORKER_URL, {
      workerData: { binary: this.options.binary, env, signal: this.wake.buffer, port: port2 },
      transferList: [port2],
      // Not crdgate's own flags (--input-type=module would have the thread read its file as something else).
      execArgv: [],
    });
    // Neither the thread nor its process keeps crdgate alive: when crdgate exits, the process's standard input
    // closes, and it ends.
    this.worker.unref();
    this.port = port1;
    // A thread that fails to start says nothing this thread could hear while it waits: it must say it is ready.
    const deadline = Date.now() + this.options.answerTimeoutMs;
    for (;;) {
      Atomics.store(this.wake, 0, 0);
      const received = receiveMessageOnPort(port1) as { message: WorkerMessage } | undefined;
      if (received?.message.kind === 'ready') return;
      if (received !== undefined) continue;
      const left = deadline - Date.now();
      if (left <= 0) {
        this.closeWorker();
        throw new EngineUnrunnableError(
          `${engineName(this.kind)} could not be run: the thread that holds its process did not start within ${this.options.answerTimeoutMs / 1000} s`,
        );
      }
      Atomics.wait(this.wake, 0, 0, left);
    }
  }

  private closeWorker(): void {
    void this.worker?.terminate();
    this.port?.close();
    this.worker = undefined;
    this.port = undefined;
    this.running = false;
  }

  private kill(start: number): void {
    // From here, not only through the thread, which may be what hangs, or be closed before it reads the message.
    const pid = this.pids.get(start);
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const kill: WorkerKill = { kind: 'kill', start };
    this.port?.postMessage(kill);
    if (start === this.starts) this.running = false;
  }

  /** What came in while nobody waited: the end of a process between calls, its log lines. */
  private drain(): void {
    if (this.port === undefined) return;
    for (;;) {
      const received = receiveMessageOnPort(this.port) as { message: WorkerMessage } | undefined;
      if (received === undefined) return;
      this.note(received.message);
    }
  }

  private note(message: WorkerMessage): void {
    if (message.kind === 'started') this.pids.set(message.start, message.pid);
    else if (message.kind === 'log') this.options.log(message.line);
    else if (message.kind === 'ended') {
      this.pids.delete(message.start);
      if (message.start === this.starts) this.running = false;
    }
  }

  private failed(ended: Extract<WorkerMessage, { kind: 'ended' }>, what: string): EngineFailedError {
    this.note(ended);
    const stderr = ended.stderr.length > 0 ? `; its last words: ${ended.stderr.join(' | ')}` : '';
    const message = `${engineName(this.kind)} (${this.options.binary}) ${ended.how} while answering ${what}${stderr}; the next request starts it again`;
    return ended.unrunnable ? new EngineUnrunnableError(message) : new EngineFailedError(message);
  }
}
