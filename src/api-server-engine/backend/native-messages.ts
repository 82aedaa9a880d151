// What NativeBackend and its worker (native-worker.ts) post to each other. Each process is known by the number of
// the start it serves: the caller counts starts, the worker starts a process for a start it has not seen.

export interface WorkerRequest {
  kind: 'request';
  start: number;
  id: number;
  operation: number;
  handle: number;
  payload: Uint8Array;
}

/** The caller gave up on the process of this start (it hung): kill it. */
export interface WorkerKill {
  kind: 'kill';
  start: number;
}

export type WorkerMessage =
  /** The thread is up: its first message. */
  | { kind: 'ready' }
  | { kind: 'answer'; id: number; payload: Uint8Array }
  | { kind: 'started'; start: number; pid: number }
  | { kind: 'log'; start: number; line: string }
  /** The process ended: how, the requests it left unanswered, and the last lines of its standard error. */
  | { kind: 'ended'; start: number; how: string; unrunnable: boolean; unanswered: number[]; stderr: string[] };
