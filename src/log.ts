import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

/** JSON logs to stdout. Object bodies are never logged at info level: custom resources can hold secrets. */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino({ level: options.level ?? 'info', base: { name: 'crdgate' } }, options.destination);
}
