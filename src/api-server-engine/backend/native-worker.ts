// The thread that holds the native engine's process for NativeBackend: it writes the requests the caller's thread
// posts as frames to the process, and posts each answer back as it is read, then wakes the caller (who waits on a
// shared word, so that the engine's API stays synchronous). When the process ends, every request it had not
// answered is answered with how it ended; a request of a later start starts another process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { workerData, type MessagePort } from 'node:worker_threads';
import { AnswerReader, requestFrame } from './frames.ts';
import type { WorkerKill, WorkerMessage, WorkerRequest } from './native-messages.ts';

interface NativeWorkerData {
  binary: string;
  env: Record<string, string>;
  signal: SharedArrayBuffer;
  port: MessagePort;
}

const { binary, env, signal, port } = workerData as NativeWorkerData;
const wake = new Int32Array(signal);
/** The last lines the process wrote to standard error: an end is reported with them (Go's fatal errors). */
const STDERR_TAIL = 20;

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
  Atomics.store(wake, 0, 1);
  Atomics.notify(wake, 0);
}

class EngineProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly unanswered = new Set<number>();
  private readonly stderrTail: string[] = [];
  private ended = false;
  private answered = false;

  readonly start: number;

  constructor(start: number) {
    this.start = start;
    this.child = spawn(binary, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const reader = new AnswerReader();
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const answer of reader.push(chunk)) {
        this.unanswered.delete(answer.id);
        this.answered = true;
        post({ kind: 'answer', id: answer.id, payload: answer.payload }, [answer.payload.buffer as ArrayBuffer]);
      }
    });
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
      post({ kind: 'log', start, line });
    });
    this.child.on('spawn', () => post({ kind: 'started', start, pid: this.child.pid! }));
    // A binary that cannot be run (missing, not executable, built for another machine): 'error', then 'close'.
    this.child.on('error', (error) => this.end(`could not be run: ${error.message}`, true));
    // 'close', not 'exit': the streams are read to their end first, so the last answers and lines are in.
    this.child.on('close', (code, signalName) =>
      this.end(signalName ? `was killed by ${signalName}` : `exited with code ${code}`, false),
    );
    // A write to a process that is gone fails: its 'close' reports the end.
    this.child.stdin.on('error', () => {});
  }

  get alive(): boolean {
    return !this.ended;
  }

  send(request: WorkerRequest): void {
    this.unanswered.add(request.id);
    this.child.stdin.write(requestFrame(request.id, request.operation, request.handle, request.payload));
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  private end(ended: string, unrunnable: boolean): void {
    if (this.ended) return;
    this.ended = true;
    const { start, unanswered, stderrTail } = this;
    // A binary for another machine is run by the shell (execvp does that on ENOEXEC), which fails on it: a process
    // that ends before its first answer could not be run here, whatever its exit says.
    const how = unrunnable || this.answered ? ended : `could not be run: it ${ended} before its first answer`;
    unrunnable ||= !this.answered;
    post({ kind: 'ended', start, how, unrunnable, unanswered: [...unanswered], stderr: [...stderrTail] });
  }
}

let current: EngineProcess | undefined;

port.on('message', (message: WorkerRequest | WorkerKill) => {
  if (message.kind === 'kill') {
    if (current?.start === message.start) current.kill();
    return;
  }
  if (current === undefined || message.start > current.start) {
    current?.kill();
    current = new EngineProcess(message.start);
  }
  if (current.start === message.start && current.alive) {
    current.send(message);
    return;
  }
  // A request of a start whose process has ended: its handles are gone with it; the caller starts again.
  post({
    kind: 'ended',
    start: message.start,
    how: 'had ended before the request reached it',
    unrunnable: false,
    unanswered: [message.id],
    stderr: [],
  });
});

post({ kind: 'ready' });
