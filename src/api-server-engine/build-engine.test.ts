import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentEngineStamp } from './build-engine.ts';
import { engineMissingMessage } from './engine.ts';

const script = fileURLToPath(new URL('./build-engine.ts', import.meta.url));

/** build-engine.ts as npm's prepare runs it, with `path` as the whole PATH: Node's folder alone hides Go. */
function prepare(into: string, path: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: path, HOME: process.env['HOME'] ?? tmpdir() };
    execFile(
      process.execPath,
      [script, '--if-go', '--place', into],
      { env, timeout: 600_000 },
      (error, _stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stderr });
      },
    );
  });
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-prepare-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

// `npm ci` (and an install from a git URL) runs prepare: it builds the engine where Go is present and goes on
// without it elsewhere, so the install works on any machine and the engine is there wherever it can be.
describe('prepare: the engine built where Go is present', () => {
  it('without Go, says so in one line and goes on, leaving dist/ without the engine', async () => {
    const { code, stderr } = await prepare(join(dir, 'dist'), dirname(process.execPath));
    expect(code).toBe(0);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^build:engine: Go is not installed .*; going on without it: .*crdgate check/);
    expect(existsSync(join(dir, 'dist', 'engine.wasm'))).toBe(false);
  });

  it('with Go, puts it in dist/ (the build cached by npm run build:engine is reused)', async (context) => {
    if (!(await currentEngineStamp())) context.skip('no Go on this machine');
    const { code, stderr } = await prepare(join(dir, 'dist'), process.env['PATH'] ?? '');
    expect(code, stderr).toBe(0);
    expect(existsSync(join(dir, 'dist', 'engine.wasm'))).toBe(true);
    expect(existsSync(join(dir, 'dist', 'engine.json'))).toBe(true);
    // The native build beside it, placed executable (proven at its build by answering one framed request).
    expect(statSync(join(dir, 'dist', 'engine-native')).mode & 0o111).toBe(0o111);
  }, 600_000);
});

describe('the message when the engine is missing', () => {
  it('tells a checkout to build it', () => {
    expect(engineMissingMessage('/home/me/crdgate/src/api-server-engine/engine.wasm')).toMatch(
      /this checkout .*npm run build:engine/,
    );
  });

  it('tells an installed or compiled crdgate why it has none and how to get one that has it', () => {
    const message = engineMissingMessage('/home/me/tools/node_modules/crdgate/dist/api-server-engine/engine.wasm');
    expect(message).toMatch(/built without it, where Go >= 1\.26 was absent/);
    expect(message).toMatch(/a tarball made by `npm pack`, which always carries it/);
    expect(message).not.toMatch(/an installed crdgate package carries it/);
  });
});
