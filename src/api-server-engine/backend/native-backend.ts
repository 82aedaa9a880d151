// The engine as a native process (go/serve_native.go), one per crdgate process, spoken to through two named pipes
// opened in blocking mode: a request is written and its answer read by plain system calls on the caller's thread,
// so the engine's API stays synchronous (contractTester(...).check() is) and a request costs two syscalls, not a
// hop through another thread. A watchdog thread, which looks at a shared word a few times per timeout, kills a process that does not
// answer in time; the read then ends, and the request fails with an error naming the engine. A process that ends
// or hangs fails the request it was answering, never hangs it or answers in its place; the next call starts another.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { engineName, EngineFailedError, type EngineBackend, type Operation } from './engine-backend.ts';
import { readAnswerFrame, requestFrame } from './frames.ts';

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

/** The last lines of the process's standard error an end is reported with (Go's fatal errors). */
const STDERR_TAIL = 20;

// The watchdog: words[0] is the call in progress (0 for none), words[1] the process's pid, words[2] the call it
// killed. The caller only stores these words, never wakes the thread: a notify per call woke it twice per request,
// a tenth of a small request's cost. So it looks every tenth of the timeout (at most a second) and kills a process
// whose call it has seen in progress for the whole timeout: a hung call ends between one and 1.1 timeouts.
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const words = new Int32Array(workerData.shared);
const tick = Math.min(1000, Math.max(10, workerData.timeoutMs / 10));
const asleep = new Int32Array(new SharedArrayBuffer(4));
let seen = 0;
let since = 0;
for (;;) {
  Atomics.wait(asleep, 0, 0, tick);
  const call = Atomics.load(words, 0);
  const now = Date.now();
  if (call !== seen) {
    seen = call;
    since = now;
  } else if (call !== 0 && now - since >= workerData.timeoutMs) {
    Atomics.store(words, 2, call);
    try { process.kill(Atomics.load(words, 1), 'SIGKILL'); } catch {}
    seen = 0;
  }
}`;

/** One started process and the ends of its pipes this process holds. */
interface Running {
  start: number;
  child: ChildProcess;
  pid: number;
  requests: number;
  answers: number;
  stderr: number;
  /** How much of the standard error file has been logged. */
  logged: number;
  answered: boolean;
}

export class NativeBackend implements EngineBackend {
  readonly kind = 'native';
  private readonly options: NativeBackendOptions;
  private readonly words = new Int32Array(new SharedArrayBuffer(12));
  private watchdog: Worker | undefined;
  private running: Running | undefined;
  private starts = 0;
  private calls = 0;

  constructor(options: NativeBackendOptions) {
    this.options = options;
  }

  start(): number {
    if (this.running) return this.running.start;
    this.starts += 1;
    this.running = this.spawnProcess(this.starts);
    return this.starts;
  }

  current(): number | undefined {
    return this.running?.start;
  }

  call(operation: Operation, handle: number, payload: Uint8Array, what: string): Uint8Array {
    this.start();
    const running = this.running!;
    this.calls = this.calls >= 0x7ffffff0 ? 1 : this.calls + 1;
    const call = this.calls;
    this.startWatchdog();
    Atomics.store(this.words, 1, running.pid);
    Atomics.store(this.words, 0, call);
    let answer: Uint8Array | undefined;
    try {
      if (writeAll(running.requests, requestFrame(call, operation, handle, payload))) {
        const framed = readAnswerFrame((length) => readExactly(running.answers, length));
        // One request at a time: an answer to another is a broken stream, which no later answer can be trusted on.
        if (framed !== undefined && framed.id !== call) {
          this.stop();
          throw new EngineFailedError(
            `${engineName(this.kind)} answered request ${framed.id} when asked ${call}, and was stopped`,
          );
        }
        answer = framed?.payload;
      }
    } finally {
      Atomics.store(this.words, 0, 0);
    }
    this.logNewLines(running);
    if (answer !== undefined) {
      running.answered = true;
      return answer;
    }
    throw this.ended(running, call, what);
  }

  memoryBytes(): number {
    if (this.running === undefined) return 0;
    try {
      // statm's second field: pages resident.
      return Number(readFileSync(`/proc/${this.running.pid}/statm`, 'utf8').split(' ')[1]) * 4096;
    } catch {
      return 0;
    }
  }

  /** @internal the process of the start running now, for tests that stop or kill it. */
  pid(): number | undefined {
    return this.running?.pid;
  }

  stop(): void {
    if (this.running === undefined) return;
    const { pid } = this.running;
    this.close(this.running);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  private spawnProcess(start: number): Running {
    const { binary, memoryLimit } = this.options;
    try {
      accessSync(binary, constants.X_OK);
    } catch (error) {
      throw new EngineUnrunnableError(
        `${engineName(this.kind)} (${binary}) could not be run: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const dir = pipeDirectory();
    if (dir === undefined)
      throw new EngineUnrunnableError(
        `${engineName(this.kind)} could not be run: no writable folder for its pipes (${PIPE_PARENTS().join(', ')})`,
      );
    const requestsPath = join(dir, 'requests');
    const answersPath = join(dir, 'answers');
    const made = spawnSync('mkfifo', ['-m', '600', requestsPath, answersPath], { encoding: 'utf8' });
    if (made.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new EngineUnrunnableError(
        `${engineName(this.kind)} could not be run: mkfifo failed: ${made.error?.message ?? made.stderr.trim()}`,
      );
    }
    // Each pipe opened for reading and writing first, so that neither blocking open waits for the other side; then
    // that end is closed, so that the process is the only writer of the answers (its end is the read's end of file)
    // and the only reader of the requests (a write after its end fails at once).
    const holdRequests = openSync(requestsPath, constants.O_RDWR);
    const holdAnswers = openSync(answersPath, constants.O_RDWR);
    const requests = openSync(requestsPath, constants.O_WRONLY);
    const answers = openSync(answersPath, constants.O_RDONLY);
    // The process's ends non-blocking, so that Go waits on them in its poller, not in a thread blocked in a read;
    // this process's ends are opened apart, blocking.
    const childRequests = openSync(requestsPath, constants.O_RDONLY | constants.O_NONBLOCK);
    const childAnswers = openSync(answersPath, constants.O_WRONLY | constants.O_NONBLOCK);
    const stderrPath = join(dir, 'stderr');
    const childStderr = openSync(stderrPath, 'w');
    const stderr = openSync(stderrPath, 'r');
    let child: ChildProcess;
    try {
      child = spawn(binary, [], {
        env: { GOMEMLIMIT: memoryLimit },
        stdio: [childRequests, childAnswers, childStderr],
      });
      // 'error' comes after this call returns, on the event loop: it is read from the pid below instead.
      child.on('error', () => {});
      child.unref();
    } finally {
      for (const fd of [childRequests, childAnswers, childStderr, holdRequests, holdAnswers]) closeSync(fd);
      // Nothing is left on disk: the open ends keep the pipes and the standard error file.
      rmSync(dir, { recursive: true, force: true });
    }
    const running: Running = {
      start,
      child,
      pid: child.pid ?? 0,
      requests,
      answers,
      stderr,
      logged: 0,
      answered: false,
    };
    if (child.pid === undefined) {
      this.close(running);
      throw new EngineUnrunnableError(`${engineName(this.kind)} (${binary}) could not be run: it did not start`);
    }
    return running;
  }

  private startWatchdog(): void {
    if (this.watchdog !== undefined) return;
    this.watchdog = new Worker(WATCHDOG, {
      eval: true,
      workerData: { shared: this.words.buffer, timeoutMs: this.options.answerTimeoutMs },
      // Not crdgate's own flags (--input-type=module would have the thread read its code as a module).
      execArgv: [],
    });
    // It keeps nothing alive: crdgate exits when its work is done, the process's pipes close, and it ends.
    this.watchdog.unref();
  }

  /** The error for a call the process did not answer, the process closed. */
  private ended(running: Running, call: number, what: string): EngineFailedError {
    const timedOut = Atomics.load(this.words, 2) === call;
    const how = timedOut ? undefined : endOf(running);
    const lastWords = this.stderrTail(running);
    this.close(running);
    if (timedOut)
      return new EngineFailedError(
        `${engineName(this.kind)} did not answer ${what} within ${this.options.answerTimeoutMs / 1000} s and was stopped (killed); the next request starts it again`,
      );
    const said = lastWords.length > 0 ? `; its last words: ${lastWords.join(' | ')}` : '';
    const unrunnable = !running.answered;
    // A binary for another machine is run by the shell (execvp does that on ENOEXEC), which fails on it: a process
    // that ends before its first answer could not be run here, whatever its exit says.
    const ended = unrunnable ? `could not be run: it ${how} before its first answer` : how;
    const message = `${engineName(this.kind)} (${this.options.binary}) ${ended} while answering ${what}${said}; the next request starts it again`;
    return unrunnable ? new EngineUnrunnableError(message) : new EngineFailedError(message);
  }

  private close(running: Running): void {
    for (const fd of [running.requests, running.answers, running.stderr]) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
    }
    if (this.running === running) this.running = undefined;
  }

  /** What the process wrote to its standard error since the last look, a line at a time, to the log. */
  private logNewLines(running: Running): void {
    const size = fstatSync(running.stderr).size;
    if (size <= running.logged) return;
    const fresh = Buffer.alloc(size - running.logged);
    readSync(running.stderr, fresh, 0, fresh.length, running.logged);
    running.logged = size;
    for (const line of fresh.toString('utf8').split('\n')) if (line !== '') this.options.log(line);
  }

  private stderrTail(running: Running): string[] {
    this.logNewLines(running);
    const size = fstatSync(running.stderr).size;
    const from = Math.max(0, size - 16_384);
    const text = Buffer.alloc(size - from);
    readSync(running.stderr, text, 0, text.length, from);
    return text.toString('utf8').split('\n').filter(Boolean).slice(-STDERR_TAIL);
  }
}

/**
 * Where the pipes are made (and unlinked as soon as both sides hold them): /dev/shm first, a memory filesystem that
 * a container keeps writable when its root filesystem is read-only (as crdgate's Deployment has it), then the
 * temporary folder.
 */
const PIPE_PARENTS = () => ['/dev/shm', tmpdir()];

function pipeDirectory(): string | undefined {
  for (const parent of PIPE_PARENTS()) {
    try {
      return mkdtempSync(join(parent, 'crdgate-engine-'));
    } catch {
      // not there, or not writable: the next
    }
  }
  return undefined;
}

/** Writes the whole frame; false when the process is gone (its end of the pipe closed). */
function writeAll(fd: number, frame: Buffer): boolean {
  let written = 0;
  while (written < frame.length) {
    try {
      written += writeSync(fd, frame, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN' || (error as NodeJS.ErrnoException).code === 'EINTR')
        continue;
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') return false;
      throw error;
    }
  }
  return true;
}

/** `length` bytes, or undefined at the end of the stream (the process is gone). */
function readExactly(fd: number, length: number): Uint8Array | undefined {
  const bytes = new Uint8Array(length);
  let read = 0;
  while (read < length) {
    let n: number;
    try {
      n = readSync(fd, bytes, read, length - read, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN' || (error as NodeJS.ErrnoException).code === 'EINTR')
        continue;
      throw error;
    }
    if (n === 0) return undefined;
    read += n;
  }
  return bytes;
}

/**
 * How the process ended, read before Node has waited for it: while this thread was blocked in a read, nobody reaped
 * it, and /proc still holds its exit status (Linux); once Node has, the child says.
 */
function endOf(running: Running): string {
  const { child, pid } = running;
  if (child.signalCode) return `was killed by ${child.signalCode}`;
  if (child.exitCode !== null) return `exited with code ${child.exitCode}`;
  for (let tries = 0; tries < 200; tries++) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ');
      // After "pid (comm) ", fields count from 3 (state); exit_code is field 52, a wait status.
      if (fields[0] === 'Z') {
        const status = Number(fields[52 - 3]);
        const signal = status & 0x7f;
        if (signal !== 0) return `was killed by ${signalName(signal)}`;
        return `exited with code ${(status >> 8) & 0xff}`;
      }
    } catch {
      break;
    }
    // The process closed its pipes but has not finished exiting yet.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  }
  return 'ended';
}

function signalName(signal: number): string {
  const name = Object.entries(osConstants.signals).find(([, number]) => number === signal)?.[0];
  return name ?? `signal ${signal}`;
}
