import { spawn, type ChildProcess } from 'node:child_process';
import type { MigrationReport } from '../../../src/migrate/migration-report.ts';
import { migrationNodeOptions } from '../../../src/render/storage-migration.ts';
import { resource } from './storage-migration.ts';

const cliPath = new URL('../../../src/cli.ts', import.meta.url).pathname;

export interface MigrateProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The exit code, or the signal that ended it (a SIGKILL leaves no code). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stderr matches `pattern` (true), or the process has ended without it (false). */
  waitForStderr: (pattern: RegExp) => Promise<boolean>;
  /** With --output json. */
  report: () => MigrationReport;
}

export interface SpawnMigrateOptions {
  /** The CLI to run: the source by default, or a compiled copy (the bench). */
  cliPath?: string;
  /** Node's own arguments before the CLI, such as `--import` of a module that measures the process. */
  nodeArgs?: readonly string[];
  /** Variables added to this process's environment. */
  env?: Record<string, string>;
}

/**
 * `crdgate migrate --resource geodatabases.geo.example.com ARGS` as a process of its own, as a Job's pod runs it:
 * with the heap the rendered Job gives it.
 */
export function spawnMigrate(args: string[], options: SpawnMigrateOptions = {}): MigrateProcess {
  const env = {
    ...process.env,
    ...options.env,
    NODE_OPTIONS: [process.env['NODE_OPTIONS'], migrationNodeOptions].filter(Boolean).join(' '),
  };
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), options.cliPath ?? cliPath, 'migrate', '--resource', resource, ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitForStderr: (pattern) =>
      new Promise<boolean>((resolve) => {
        const check = () => {
          if (!pattern.test(stderr)) return;
          child.stderr!.off('data', check);
          resolve(true);
        };
        child.stderr!.on('data', check);
        void exited.then(() => resolve(pattern.test(stderr)));
        check();
      }),
    report: () => JSON.parse(stdout) as MigrationReport,
  };
}
