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
