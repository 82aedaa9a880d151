import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { main } from './cli.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process, as `crdgate ARGV` in `cwd`, capturing what it writes. */
export async function runCli(cwd: string, ...argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd,
    waitForStop: () => new Promise(() => {}),
  });
  return { code, stdout, stderr };
}

/**
 * For one test file: a fresh temporary folder (removed after the file) and the CLI running in it. Call it at the
 * top of the file; `dir()` is the folder once the file's tests run.
 */
export function cliInTempDir(prefix: string): { dir: () => string; run: (...argv: string[]) => Promise<CliRun> } {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const current = (): string => {
    if (!dir) throw new Error('the temporary folder exists only while the tests run');
    return dir;
  };
  return { dir: current, run: (...argv) => runCli(current(), ...argv) };
}
