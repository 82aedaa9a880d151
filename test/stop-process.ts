import { readFileSync } from 'node:fs';

// Freezing a process to make it hang, for tests of what notices a hang. SIGSTOP is only sent by kill(2): the process
// stops once the kernel gets to it, which on a loaded machine can come after the test's next step.

/** The process's state letter from /proc (R, S, T for stopped, Z for a zombie), or undefined once it is gone. */
export function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
  } catch {
    return undefined;
  }
}

/** Stops the process and returns once it is stopped (throws if it is not within 5 s). */
export function stopProcess(pid: number): void {
  process.kill(pid, 'SIGSTOP');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 5000; waited += 5) {
    if (processState(pid) === 'T') return;
    Atomics.wait(pause, 0, 0, 5);
  }
  throw new Error(`process ${pid} did not stop on SIGSTOP within 5 s (state ${processState(pid)})`);
}
