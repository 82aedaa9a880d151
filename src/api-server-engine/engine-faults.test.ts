import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stopProcess } from '../../test/stop-process.ts';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import type { NativeBackend } from './backend/native-backend.ts';
import { ENGINE_NATIVE_PATH, EngineFailedError, judge, loadCrd, runningEngine } from './engine.ts';

// The native engine's process failing under crdgate's engine API, as `check`, contractTester and the CRD gate call
// it: the request it was answering fails with an error naming the engine (so a check fails and the gate denies,
// never an allow), and the next request is answered by a process started again, its CRDs compiled again.

// Read once, at the engine's first use in this process (a test file runs in a process of its own).
process.env['CRDGATE_ENGINE_TIMEOUT'] = '2';

const crd = loadCrdOnce();
function loadCrdOnce() {
  if (!existsSync(ENGINE_NATIVE_PATH)) return undefined;
  return loadCrd({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { size: { type: 'integer', minimum: 1, default: 3 } },
                  'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'size must stay below 10' }],
                },
              },
            },
          },
        },
      ],
    },
  });
}

const gadget = (size?: number) => ({
  operation: 'CREATE' as const,
  object: {
    apiVersion: 'example.com/v1',
    kind: 'Gadget',
    metadata: { name: 'g', namespace: 'default' },
    spec: size === undefined ? {} : { size },
  },
});

const native = () => runningEngine() as NativeBackend;

describe.skipIf(
  missingPrerequisite(
    "the native engine's faults",
    crd === undefined ? `${ENGINE_NATIVE_PATH} is not built (npm run build:engine)` : undefined,
  ),
)('the native engine failing under the engine API', () => {
  it('runs natively here', () => {
    expect(judge(crd!, gadget(4))).toMatchObject({ allowed: true });
    expect(runningEngine()?.kind).toBe('native');
  });

  it('answers the next request after the process was killed between requests, its CRD compiled again', () => {
    expect(judge(crd!, gadget()).object).toMatchObject({ spec: { size: 3 } });
    const pid = native().pid()!;
    process.kill(pid, 'SIGKILL');
    // Until the end is reported, the request may go to the ended process: then it fails, and the next one is answered.
    let judged;
    for (let attempt = 0; attempt < 2 && judged === undefined; attempt++) {
      try {
        judged = judge(crd!, gadget(12));
      } catch (error) {
        expect(error).toBeInstanceOf(EngineFailedError);
      }
    }
    expect(judged).toMatchObject({ allowed: false, code: 422 });
    expect(judged!.message).toContain('size must stay below 10');
    expect(native().pid()).not.toBe(pid);
  });

  it('fails the request it was answering when killed in the middle of it, naming the engine, then answers again', () => {
    judge(crd!, gadget(1));
    const pid = native().pid()!;
    stopProcess(pid);
    spawn('sh', ['-c', `sleep 0.3; kill -KILL ${pid}`], { stdio: 'ignore' }).unref();
    expect(() => judge(crd!, gadget(5))).toThrow(
      /^the native API server engine \(.*\) was killed by SIGKILL while answering the object; the next request starts it again$/,
    );
    expect(judge(crd!, gadget(5))).toMatchObject({ allowed: true });
  });

  it('fails the request a hung process does not answer within CRDGATE_ENGINE_TIMEOUT, then answers again', () => {
    judge(crd!, gadget(1));
    const pid = native().pid()!;
    stopProcess(pid);
    expect(native().pid(), 'the process asked is the one stopped').toBe(pid);
    expect(() => judge(crd!, gadget(5))).toThrow(
      /^the native API server engine did not answer the object within 2 s and was stopped \(killed\)/,
    );
    expect(judge(crd!, gadget(0))).toMatchObject({ allowed: false, code: 422 });
    expect(native().pid()).not.toBe(pid);
  });
});
