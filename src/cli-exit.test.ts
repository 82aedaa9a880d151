import { afterEach, describe, expect, it } from 'vitest';
import { commandLoaders } from './cli.ts';
import { runCli } from './cli-runner.fixture.ts';
import type { Command } from './commands/command.ts';
import { CommandError, commandAnswers, commandErrors, type CommandErrorCode } from './errors.ts';

// main is the one place an error becomes an exit status: a command throws, main looks its code up in the catalog.
const original = commandLoaders.fsa;
afterEach(() => {
  commandLoaders.fsa = original;
});

/** `crdgate fsa` stood in for by a command that fails with `error`. */
function failingWith(error: unknown): void {
  const command: Command = {
    name: 'fsa',
    summary: '',
    usage: 'crdgate fsa',
    options: {},
    run: () => Promise.reject(error),
  };
  commandLoaders.fsa = () => Promise.resolve(command);
}

describe('the exit status of a command error', () => {
  it.each(Object.keys(commandErrors) as CommandErrorCode[])(
    '%s: its catalog exit status and one line naming the command',
    async (code) => {
      failingWith(new CommandError(code, `what went wrong (${code})\nand a second line nobody needs`));
      expect(await runCli(process.cwd(), 'fsa')).toEqual({
        code: commandErrors[code].exitStatus,
        stdout: '',
        stderr: `crdgate fsa: what went wrong (${code})\n`,
      });
    },
  );

  it('prints the detail of another program below the one line, as it is', async () => {
    failingWith(
      new CommandError('NPM_FAILED', 'npm install failed:', '  npm error code ENOENT\n  npm error path /nowhere'),
    );
    expect(await runCli(process.cwd(), 'fsa')).toMatchObject({
      code: commandErrors.NPM_FAILED.exitStatus,
      stderr: 'crdgate fsa: npm install failed:\n  npm error code ENOENT\n  npm error path /nowhere\n',
    });
  });

  it('is never 0 or 1, which mean "done" and "the answer is no"', () => {
    expect([commandAnswers.DONE.exitStatus, commandAnswers.NO.exitStatus]).toEqual([0, 1]);
    for (const { exitStatus } of Object.values(commandErrors)) expect(exitStatus).toBeGreaterThanOrEqual(2);
    expect(commandErrors.USAGE.exitStatus).toBe(2);
    expect(commandErrors.MIGRATION_INTERRUPTED.exitStatus).toBe(3);
  });

  it('leaves any other error to crash with its stack: a bug is not a usage problem', async () => {
    const bug = new TypeError('x is undefined');
    failingWith(bug);
    await expect(runCli(process.cwd(), 'fsa')).rejects.toBe(bug);
  });
});
