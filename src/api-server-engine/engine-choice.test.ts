import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import { ENGINE_NATIVE_PATH, ENGINE_WASM_PATH, evaluateCel, runningEngine } from './engine.ts';

// Which engine runs: the native one wherever it is built, unless CRDGATE_ENGINE says otherwise; the WebAssembly one
// where no native one is (a tarball install), or where the one built cannot run here. Each asked of a process of its
// own, since a process chooses once.

const src = fileURLToPath(new URL('../', import.meta.url));
const nodeBinary = process.execPath;

/** In a process of its own: the engine module of `root`, asked 6 * 7 under `env`; what it printed and logged. */
function askedIn(root: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `
    const engine = await import(${JSON.stringify(join(root, 'api-server-engine', 'engine.ts'))});
    engine.setEngineLog({ info: (line) => console.log('info: ' + line), warn: (line) => console.log('warn: ' + line) });
    try {
      const { value } = engine.evaluateCel({ expr: '6 * 7' });
      console.log('answer: ' + value.int64Value + ' from ' + engine.runningEngine().kind);
    } catch (error) {
      console.log(error.name + ': ' + error.message);
    }`;
  return new Promise((resolve) => {
    execFile(
      nodeBinary,
      ['--input-type=module', '-e', script],
      { env: { PATH: process.env['PATH'] ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const missing = [ENGINE_NATIVE_PATH, ENGINE_WASM_PATH].filter((path) => !existsSync(path));
const bothBuilt = missing.length > 0 ? `${missing.join(' and ')} not built (npm run build:engine)` : undefined;

describe.skipIf(missingPrerequisite('the choice of the API server engine', bothBuilt))('the engine that runs', () => {
  it("is the one this test project names (the unit project's native, the wasm project's WebAssembly)", () => {
    expect(evaluateCel({ expr: '6 * 7' }).value).toEqual({ int64Value: '42' });
    expect(runningEngine()?.kind).toBe(process.env['CRDGATE_ENGINE'] ?? 'native');
  });

  it('is the native one where it is built, and says so once', async () => {
    const { stdout } = await askedIn(src, {});
    expect(stdout).toBe(
      `info: the API server engine runs natively: it is built (${ENGINE_NATIVE_PATH})\nanswer: 42 from native\n`,
    );
  });

  it('is the one CRDGATE_ENGINE names, and a wrong name is an error naming the variable', async () => {
    expect((await askedIn(src, { CRDGATE_ENGINE: 'wasm' })).stdout).toBe(
      'info: the API server engine runs as WebAssembly: CRDGATE_ENGINE=wasm\nanswer: 42 from wasm\n',
    );
    expect((await askedIn(src, { CRDGATE_ENGINE: 'native' })).stdout).toContain('answer: 42 from native\n');
    expect((await askedIn(src, { CRDGATE_ENGINE: 'go' })).stdout).toBe(
      'EngineUnavailableError: CRDGATE_ENGINE must be native or wasm (or unset, for the native engine where it is built), got "go"\n',
    );
    expect((await askedIn(src, { CRDGATE_ENGINE_TIMEOUT: '0' })).stdout).toMatch(
      /^EngineUnavailableError: CRDGATE_ENGINE_TIMEOUT must be a number of seconds above 0, got "0"\n$/,
    );
  });

  describe('in a copy of crdgate', () => {
    // A copy of src/ beside the checkout's node_modules, with the WebAssembly engine linked in.
    mkdirSync(join(src, '..', '.tmp'), { recursive: true });
    const copy = mkdtempSync(join(src, '..', '.tmp', 'engine-choice-'));
    afterAll(() => rmSync(copy, { recursive: true, force: true }));
    cpSync(src, join(copy, 'src'), {
      recursive: true,
      filter: (path) => !/engine(\.wasm|-native)$/.test(path) && !path.endsWith('.test.ts'),
    });
    const engineDir = join(copy, 'src', 'api-server-engine');
    symlinkSync(ENGINE_WASM_PATH, join(engineDir, 'engine.wasm'));

    it('without a native build (a tarball install), runs WebAssembly; CRDGATE_ENGINE=native says what is missing', async () => {
      expect((await askedIn(join(copy, 'src'), {})).stdout).toBe(
        `info: the API server engine runs as WebAssembly: no native engine is built beside it (${join(engineDir, 'engine-native')})\nanswer: 42 from wasm\n`,
      );
      expect((await askedIn(join(copy, 'src'), { CRDGATE_ENGINE: 'native' })).stdout).toMatch(
        /^EngineUnavailableError: CRDGATE_ENGINE=native, and the native API server engine is not there \(.*engine-native is missing\): unset CRDGATE_ENGINE/,
      );
    });

    it('with a native build that cannot run here (built for another machine), warns and runs WebAssembly', async () => {
      const foreign = join(engineDir, 'engine-native');
      writeFileSync(foreign, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0xff, 0, 0, 0, 0]));
      chmodSync(foreign, 0o755);
      try {
        const { stdout } = await askedIn(join(copy, 'src'), {});
        expect(stdout).toMatch(
          /^info: the API server engine runs natively: it is built \(.*\)\n(warn: the native API server engine: .*\n)*warn: the native API server engine cannot run here, so the API server engine \(WebAssembly\) runs instead: the native API server engine \(.*engine-native\) could not be run: it exited with code \d+ before its first answer while answering the CEL expression; .*\nanswer: 42 from wasm\n$/,
        );
        // Asked for by name, it is not replaced: the request fails, naming it.
        expect((await askedIn(join(copy, 'src'), { CRDGATE_ENGINE: 'native' })).stdout).toMatch(
          /^info: .*\n(warn: .*\n)*EngineUnrunnableError: the native API server engine \(.*engine-native\) could not be run/,
        );
        // With no WebAssembly build to give way to, the native engine's own error, not a missing file's.
        rmSync(join(engineDir, 'engine.wasm'));
        expect((await askedIn(join(copy, 'src'), {})).stdout).toMatch(
          /^info: .*\n(warn: .*\n)*EngineUnrunnableError: the native API server engine \(.*engine-native\) could not be run/,
        );
      } finally {
        if (!existsSync(join(engineDir, 'engine.wasm'))) symlinkSync(ENGINE_WASM_PATH, join(engineDir, 'engine.wasm'));
        rmSync(foreign);
      }
    });
  });
});
