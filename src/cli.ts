import { parseArgs } from 'node:util';
import { UsageError, type Command, type CommandIo } from './commands/command.ts';
import { whenParentExits } from './commands/parent-exit.ts';
import { CommandError, commandAnswers, commandErrors } from './errors.ts';

/**
 * Each command's module is loaded when that command runs, never before: `serve` then keeps node-forge, yaml and the
 * other commands' code out of its heap, where every mark-compact would have to mark it on the hot path. The key is
 * the command's name (a test holds each loader to it).
 */
export const commandLoaders = {
  serve: async () => (await import('./commands/serve/serve.ts')).serveCommand,
  certs: async () => (await import('./commands/certs.ts')).certsCommand,
  check: async () => (await import('./commands/check.ts')).checkCommand,
  convert: async () => (await import('./commands/convert.ts')).convertCommand,
  fsa: async () => (await import('./commands/fsa.ts')).fsaCommand,
  manifests: async () => (await import('./commands/manifests.ts')).manifestsCommand,
  migrate: async () => (await import('./commands/migrate.ts')).migrateCommand,
  init: async () => (await import('./commands/init.ts')).initCommand,
  dev: async () => (await import('./commands/dev.ts')).devCommand,
  'kube-bin': async () => (await import('./commands/kube-bin.ts')).kubeBinCommand,
} satisfies Record<string, () => Promise<Command>>;

type CommandName = keyof typeof commandLoaders;
const commandNames = Object.keys(commandLoaders) as CommandName[];

function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commandLoaders, name);
}

async function overview(): Promise<string> {
  const commands = await Promise.all(commandNames.map((name) => commandLoaders[name]()));
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'crdgate: admission and conversion webhooks for Kubernetes custom resources',
    '',
    'usage: crdgate COMMAND [flags]    (crdgate COMMAND --help for its flags)',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
  ].join('\n');
}

/**
 * Runs one command and returns its exit code. The only place that turns argv into values and errors into exit
 * codes: a command's answer (0 done, 1 "no": denied, failed objects) and a CommandError's exit status, both from
 * the catalog (src/errors.ts), 2 for bad usage or input.
 */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(await overview());
    return name === undefined ? commandErrors.USAGE.exitStatus : commandAnswers.DONE.exitStatus;
  }
  if (!isCommandName(name)) {
    io.stderr(`crdgate: unknown command "${name}" (commands: ${commandNames.join(', ')})\n`);
    return commandErrors.USAGE.exitStatus;
  }
  const command = await commandLoaders[name]();
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
    if (values.help) {
      io.stdout(`${command.usage}\n`);
      return commandAnswers.DONE.exitStatus;
    }
    const names = command.positionals ?? [];
    if (positionals.length > names.length) throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
    if (positionals.length < names.length)
      throw new UsageError(`${names[positionals.length]} is required (${command.usage.split('\n')[0]})`);
    const named = Object.fromEntries(names.map((name, index) => [name, positionals[index]]));
    return await command.run({ ...values, ...named }, io);
  } catch (error) {
    const failure = isParseArgsError(error) ? new UsageError((error as Error).message) : error;
    if (failure instanceof CommandError) {
      io.stderr(
        `crdgate ${name}: ${failure.message.split('\n')[0]}\n${failure.detail === undefined ? '' : `${failure.detail}\n`}`,
      );
      return failure.exitStatus;
    }
    throw error;
  }
}

function isParseArgsError(error: unknown): boolean {
  return (
    typeof (error as { code?: unknown })?.code === 'string' &&
    String((error as { code: string }).code).startsWith('ERR_PARSE_ARGS')
  );
}

function processIo(): CommandIo {
  let stop: Promise<string> | undefined;
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    stderrIsTerminal: process.stderr.isTTY === true,
    waitForStop: () =>
      (stop ??= new Promise<string>((resolve) => {
        for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => resolve(signal));
      })),
    waitForParentExit: () => whenParentExits(() => process.ppid),
  };
}

/** Runs the command in process.argv with the process's streams, and sets the exit code. */
export function runProcess(): void {
  main(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`crdgate: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

// `node src/cli.ts` (the benchmarks start it so); the installed command starts through bin.ts.
if (import.meta.main) runProcess();
