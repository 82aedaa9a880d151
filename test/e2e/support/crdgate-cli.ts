import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real command, as a pipeline runs it: a process of its own, from the source. A failing run resolves too. */
export function crdgate(cwd: string, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}
