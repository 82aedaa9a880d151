import { execFile } from 'node:child_process';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment for a command run in a scratch project, without what `npm test` put in this process's about
 * crdgate's own package and folder (an npm started with `npm_config_local_prefix` would act on the repository).
 * npm's configuration (`npm_config_*`: cache, registry, certificates) is kept.
 */
export function scratchEnv(): NodeJS.ProcessEnv {
  const aboutThisPackage = /^(npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|INIT_CWD$)/i;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !aboutThisPackage.test(name)));
}

/**
 * Runs a command to its end; a failing command resolves too, so that tests can show its output. `extraEnv` adds to
 * (or overrides) the scratch environment.
 */
export function runCommand(
  file: string,
  args: string[],
  cwd: string,
  timeoutMs = 300_000,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const env = { ...scratchEnv(), ...extraEnv };
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
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
