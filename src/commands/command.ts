import type { ParseArgsConfig } from 'node:util';
import { CommandError } from '../errors.ts';

/** Where a command writes; the CLI passes process streams, tests pass buffers. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** stderr is a terminal: progress can be redrawn in place instead of printed line by line. Absent: not. */
  stderrIsTerminal?: boolean;
  /**
   * Resolves with the signal's name when the process is asked to stop (SIGTERM/SIGINT). Only long-running
   * commands call it: until then, the signals keep their default meaning.
   */
  waitForStop: () => Promise<string>;
  /**
   * Resolves when the process that started this one has exited (a wrapper such as `npm run` that was stopped),
   * for a command that must not outlive it. Absent: never (tests, and callers that start commands in-process).
   */
  waitForParentExit?: () => Promise<void>;
}

export type ParsedValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Names of the arguments the command takes before or between its flags, all required (`init DIR`). */
  positionals?: readonly string[];
  /**
   * Returns the exit code: 0 success, 1 the answer is "no" (denied, failed objects). A failure is thrown as a
   * CommandError, whose code sets the exit status (src/errors.ts's commandErrors).
   */
  run(values: ParsedValues, io: CommandIo): Promise<number>;
}

/** Bad flags or arguments (code USAGE): the CLI prints the message on one line and exits 2. */
export class UsageError extends CommandError {
  override name = 'UsageError';

  constructor(message: string) {
    super('USAGE', message);
  }
}

export function stringOption(values: ParsedValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(values: ParsedValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? [value]
      : [];
}

/** A positive number, decimals allowed (a rate, say). */
export function positiveNumber(values: ParsedValues, name: string, fallback: number): number {
  const text = stringOption(values, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(value) || value <= 0)
    throw new UsageError(`--${name} must be a positive number, got "${text}"`);
  return value;
}

export function requiredString(values: ParsedValues, name: string): string {
  const value = stringOption(values, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function positiveInteger(
  values: ParsedValues,
  name: string,
  fallback: number,
  { allowZero = false } = {},
): number {
  const text = stringOption(values, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || (value === 0 && !allowZero)) {
    throw new UsageError(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} whole number, got "${text}"`);
  }
  return value;
}

/** A TCP port: 0 (any free one) to 65535, checked before anything is started or written. */
export function portOption(values: ParsedValues, name: string, fallback: number): number {
  const port = positiveInteger(values, name, fallback, { allowZero: true });
  if (port > 65535) throw new UsageError(`--${name} must be a port number from 0 to 65535, got ${port}`);
  return port;
}

const durationUnitsMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration such as `90d`, `12h`, `5m` or `30s`, in milliseconds. */
export function durationOption(values: ParsedValues, name: string, fallbackMs: number): number {
  const text = stringOption(values, name);
  if (text === undefined) return fallbackMs;
  const match = /^(\d+)([smhd])$/.exec(text);
  const value = match ? Number(match[1]) * durationUnitsMs[match[2] as keyof typeof durationUnitsMs] : NaN;
  if (!match || !Number.isSafeInteger(value) || value === 0) {
    throw new UsageError(
      `--${name} must be a positive duration with a unit: s, m, h or d (90d, 12h, 5m, 30s), got "${text}"`,
    );
  }
  return value;
}
