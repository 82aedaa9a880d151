import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * JSON logs to stdout. Object bodies are never logged at info level: custom resources can hold secrets.
 * Writes are asynchronous: a synchronous write per request line cost as much as the admission decision itself
 * (bench/ --profile). Callers flush before the process exits.
 */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    { level: options.level ?? 'info', base: { name: 'crdgate' } },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
