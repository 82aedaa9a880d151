import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { processState, stopProcess } from '../../../test/stop-process.ts';
import { missingPrerequisite } from '../../../test/missing-prerequisite.ts';
import { ENGINE_NATIVE_PATH, nativeBackend, type EngineLog } from './choose-backend.ts';
import { EngineFailedError, Operation } from './engine-backend.ts';
import { AnswerReader, requestFrame } from './frames.ts';
import { EngineUnrunnableError, type NativeBackend } from './native-backend.ts';

// The native engine's process as NativeBackend holds it: its answers, and each way it can fail (killed in the middle
// of a request, hung, not runnable, dying with words on standard error), which must fail that request with an error
// naming the engine, never hang or answer in its place, and leave the next request working.

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
const scratch = mkdtempSync(join(tmpdir(), 'crdgate-native-engine-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const logged: string[] = [];
const log: EngineLog = { info: (line) => logged.push(line), warn: (line) => logged.push(line) };
const open: NativeBackend[] = [];
afterEach(() => {
  for (const backend of open.splice(0)) backend.stop();
  logged.length = 0;
});

function backend(answerTimeoutMs = 60_000, binary = ENGINE_NATIVE_PATH): NativeBackend {
  const made = nativeBackend({ asked: 'native', answerTimeoutMs, memoryLimit: '512MiB' }, log, binary);
  open.push(made);
  return made;
}

const sixTimesSeven = (engine: NativeBackend) =>
  decode(engine.call(Operation.evaluate, 0, encode({ expr: '6 * 7' }), 'the CEL expression'));

/** Whether a process is there (a zombie or gone counts as not). */
function alive(pid: number): boolean {
  const state = processState(pid);
  return state !== undefined && state !== 'Z';
}

/** Sends `signal` to `pid` after `ms`, from a process of its own: this thread is blocked in the call meanwhile. */
function signalLater(pid: number, signal: string, ms: number): void {
  spawn('sh', ['-c', `sleep ${ms / 1000}; kill -${signal} ${pid}`], { stdio: 'ignore' }).unref();
}

const built = existsSync(ENGINE_NATIVE_PATH) ? undefined : `${ENGINE_NATIVE_PATH} is not built (npm run build:engine)`;

describe.skipIf(missingPrerequisite('the native API server engine', built))('the native engine process', () => {
  it('answers as the engine does, starting once and answering many requests', () => {
    const engine = backend();
    expect(engine.current()).toBeUndefined();
    expect(sixTimesSeven(engine)).toEqual({ type: { primitive: 'INT64' }, value: { int64Value: '42' } });
    const pid = engine.pid();
    expect(pid).toBeGreaterThan(0);
    for (let i = 0; i < 50; i++) expect(sixTimesSeven(engine).value).toEqual({ int64Value: '42' });
    expect(engine.pid()).toBe(pid);
    expect(engine.memoryBytes()).toBeGreaterThan(1e6);
    // Its pipes and its standard error are open files no longer on disk: nothing is left behind, whatever ends it.
    for (const fd of [0, 1, 2])
      expect(readlinkSync(`/proc/${pid}/fd/${fd}`)).toMatch(/\/crdgate-engine-\w+\/\w+ \(deleted\)$/);
  });

  it('fails the request it was answering when killed in the middle of it, and starts again for the next', () => {
    const engine = backend();
    sixTimesSeven(engine);
    const first = engine.start();
    const pid = engine.pid()!;
    // Stopped, the request waits for an answer; killed while it waits.
    stopProcess(pid);
    signalLater(pid, 'KILL', 300);
    expect(() => sixTimesSeven(engine)).toThrow(EngineFailedError);
    expect(sixTimesSeven(engine).value).toEqual({ int64Value: '42' });
    expect(engine.start()).toBe(first + 1);
    expect(engine.pid()).not.toBe(pid);
    expect(alive(pid)).toBe(false);
  });

  it('names the engine and how it ended in the error', () => {
    const engine = backend();
    sixTimesSeven(engine);
    const pid = engine.pid()!;
    stopProcess(pid);
    signalLater(pid, 'KILL', 200);
    expect(() => sixTimesSeven(engine)).toThrow(
      /^the native API server engine \(.*engine-native\) was killed by SIGKILL while answering the CEL expression; the next request starts it again$/,
    );
    expect(sixTimesSeven(engine).value).toEqual({ int64Value: '42' });
  });

  it('kills a process that does not answer in time, and fails that request instead of waiting on', () => {
    const engine = backend(500);
    sixTimesSeven(engine);
    const pid = engine.pid()!;
    stopProcess(pid);
    const asked = Date.now();
    const cpuBefore = process.cpuUsage();
    expect(() => sixTimesSeven(engine)).toThrow(
      /^the native API server engine did not answer the CEL expression within 0.5 s and was stopped \(killed\)/,
    );
    const cpu = process.cpuUsage(cpuBefore);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(500);
    // The caller sleeps in its read while the process works or hangs: a read that spun on EAGAIN (a non-blocking
    // end) burnt the whole wait on a core.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(250);
    expect(sixTimesSeven(engine).value).toEqual({ int64Value: '42' });
    expect(engine.pid()).not.toBe(pid);
  });

  it('forgets what the ended process held: a handle of its start is refused by the next one', () => {
    const engine = backend();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Thing', plural: 'things', singular: 'thing', listKind: 'ThingList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    const { handle } = decode(engine.call(Operation.load, 0, encode(crd), 'the CRD')) as { handle: number };
    const judgeIt = () =>
      decode(
        engine.call(
          Operation.judge,
          handle,
          encode({
            operation: 'CREATE',
            object: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a' } },
          }),
          'the object',
        ),
      );
    expect(judgeIt()).toMatchObject({ allowed: true });
    engine.stop();
    expect(judgeIt()).toMatchObject({ error: `no CRD is loaded under handle ${handle}` });
  });
});

describe.skipIf(built !== undefined)('the native engine protocol', () => {
  it('answers many requests in flight at once, each tagged with its id, whatever order they finish in', async () => {
    const child = spawn(ENGINE_NATIVE_PATH, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    const reader = new AnswerReader();
    const answers = new Map<number, unknown>();
    const all = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        for (const answer of reader.push(chunk)) answers.set(answer.id, decode(answer.payload));
        if (answers.size === 40) resolve();
      });
    });
    // Written in one go: every request but the last is queued behind another when the engine reads it.
    const frames = Array.from({ length: 40 }, (_, i) =>
      requestFrame(100 + i, Operation.evaluate, 0, encode({ expr: `[${i}].map(x, x * 3)[0]` })),
    );
    child.stdin.end(Buffer.concat(frames));
    await all;
    expect([...answers.keys()].sort((a, b) => a - b)).toEqual(frames.map((_, i) => 100 + i));
    for (const [id, answer] of answers) expect(answer).toMatchObject({ value: { int64Value: String((id - 100) * 3) } });
  });
});

describe('an engine process that cannot serve', () => {
  it('is not runnable: the request fails with EngineUnrunnableError naming the binary', () => {
    const missing = join(scratch, 'no-such-engine');
    expect(() => sixTimesSeven(backend(60_000, missing))).toThrow(EngineUnrunnableError);
    expect(() => sixTimesSeven(backend(60_000, missing))).toThrow(/no-such-engine\) could not be run: ENOENT$/);
  });

  it('dies before its first answer with words on standard error: it could not be run, and they are logged and quoted', () => {
    const dying = join(scratch, 'dying-engine');
    writeFileSync(dying, '#!/bin/sh\necho "fatal error: runtime: out of memory" >&2\nexit 2\n');
    chmodSync(dying, 0o755);
    const engine = backend(60_000, dying);
    expect(() => sixTimesSeven(engine)).toThrow(EngineUnrunnableError);
    expect(() => sixTimesSeven(engine)).toThrow(
      /dying-engine\) could not be run: it exited with code 2 before its first answer while answering the CEL expression; its last words: fatal error: runtime: out of memory;/,
    );
    expect(logged).toEqual(Array(2).fill('the native API server engine: fatal error: runtime: out of memory'));
  });
});
