import { parseArgs } from 'node:util';
import { certsCommand } from './commands/certs.ts';
import { checkCommand } from './commands/check.ts';
import { convertCommand } from './commands/convert.ts';
import { fsaCommand } from './commands/fsa.ts';
import { initCommand } from './commands/init.ts';
import { UsageError, type Command, type CommandIo } from './commands/command.ts';
import { manifestsCommand } from './commands/manifests.ts';
import { migrateCommand } from './commands/migrate.ts';
import { serveCommand } from './commands/serve.ts';

const commands: Command[] = [serveCommand, certsCommand, checkCommand, convertCommand, fsaCommand, manifestsCommand, migrateCommand, initCommand];

function overview(): string {
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
 * codes: 0 success, 1 a "no" from the command (denied, failed objects), 2 bad usage or input.
 */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(overview());
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr(`crdgate: unknown command "${name}" (commands: ${commands.map((c) => c.name).join(', ')})\n`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: true,
    });
    if (values.help) {
      io.stdout(`${command.usage}\n`);
      return 0;
    }
    const names = command.positionals ?? [];
    if (positionals.length > names.length) throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
    if (positionals.length < names.length) throw new UsageError(`${names[positionals.length]} is required (${command.usage.split('\n')[0]})`);
    const named = Object.fromEntries(names.map((name, index) => [name, positionals[index]]));
    return await command.run({ ...values, ...named }, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr(`crdgate ${name}: ${(error as Error).message.split('\n')[0]}\n`);
      return 2;
    }
    throw error;
  }
}

function isParseArgsError(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && String((error as { code: string }).code).startsWith('ERR_PARSE_ARGS');
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
