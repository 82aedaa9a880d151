import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { isKubeObject, type KubeObject } from '../contract/values/kube-object.ts';
import { CommandError } from '../errors.ts';

export type FileFormat = 'json' | 'yaml';

/**
 * The bytes of a file a flag names (relative to `cwd`); one that cannot be read is INPUT_INVALID, `named` (the flag
 * and the path as given) saying which.
 */
export async function readInputFile(path: string, cwd: string, named = path): Promise<Buffer> {
  try {
    return await readFile(resolve(cwd, path));
  } catch (error) {
    throw unreadable(named, error);
  }
}

function unreadable(named: string, error: unknown): CommandError {
  return new CommandError(
    'INPUT_INVALID',
    `${named}: cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
  );
}

/** Reads one Kubernetes object from a YAML or JSON file; `-` reads standard input. */
export async function readObjectFile(path: string, cwd: string): Promise<{ object: KubeObject; format: FileFormat }> {
  const text =
    path === '-'
      ? await readStdin().catch((error: unknown) => {
          throw unreadable(path, error);
        })
      : (await readInputFile(path, cwd)).toString('utf8');
  const format: FileFormat = /^\s*[{[]/.test(text) ? 'json' : 'yaml';
  let value: unknown;
  try {
    value = format === 'json' ? JSON.parse(text) : parse(text);
  } catch (error) {
    throw new CommandError(
      'INPUT_INVALID',
      `${path}: not valid ${format.toUpperCase()}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  if (!isKubeObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') {
    throw new CommandError('INPUT_INVALID', `${path}: expected one Kubernetes object with apiVersion and kind`);
  }
  return { object: value, format };
}

export function formatObject(object: unknown, format: FileFormat): string {
  return format === 'json' ? `${JSON.stringify(object, null, 2)}\n` : stringify(object);
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
