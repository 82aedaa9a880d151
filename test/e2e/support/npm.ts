import { execFile } from 'node:child_process';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment for a command run in a scratch project, without what `npm test` put in this process's: npm's
 * `npm_*` variables describe crdgate's own package and folder, and an npm started with them would act on it.
 */
export function scratchEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'));
}

/** Runs a command to its end; a failing command resolves too, so that tests can show its output. */
export function runCommand(file: string, args: string[], cwd: string, timeoutMs = 300_000): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, env: scratchEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ exitCode: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/**
 * npm, as a user runs it. `--prefer-offline` takes what npm's cache holds without asking the registry again, which
 * keeps the second install of the same packages fast.
 */
export function npm(args: string[], cwd: string): Promise<CommandResult> {
  return runCommand('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], cwd);
}
