import { execFile } from 'node:child_process';

/** npm failed; the message holds what npm said about it (its warnings and notices left out). */
export class NpmError extends Error {
  override name = 'NpmError';
}

/**
 * Runs npm to its end in `cwd`. Leaves out of npm's environment what an npm that started crdgate (`npx crdgate`,
 * `npm run crdgate`) put there about its own package: with `npm_config_local_prefix`, an npm acts on that
 * package's folder instead of `cwd`.
 */
export function runNpm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const aboutAnotherPackage = /^(npm_package_|npm_lifecycle_|npm_command$|npm_config_local_prefix$|INIT_CWD$)/i;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !aboutAnotherPackage.test(name)));
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve({ stdout, stderr });
      const said = npmComplaint(stderr);
      reject(new NpmError(`npm ${args[0]} failed${said === '' ? `: ${error.message.split('\n')[0]}` : `:\n${said}`}`));
    });
  });
}

/**
 * The part of npm's stderr that says what went wrong: its errors and the output of a script that failed, without
 * warnings, notices and the pointer to the debug log, and only the last lines of a long story.
 */
export function npmComplaint(stderr: string, maxLines = 20): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trimEnd())
    .filter(
      (line) => line !== '' && !/^npm (warn|notice|WARN)\b/.test(line) && !/A complete log of this run/.test(line),
    );
  return lines
    .slice(-maxLines)
    .map((line) => `  ${line}`)
    .join('\n');
}
