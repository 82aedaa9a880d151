import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CommandError } from '../errors.ts';
import { parseRuleConfig, RuleConfigError, type RuleConfig } from '../crd-revision/rule-config.ts';

/** The CRD revision rules' settings and evidence policy: a file that cannot be read or does not hold a valid config stops the run. */
export async function readCrdRules(path: string, cwd: string): Promise<RuleConfig> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new CommandError(
      'INPUT_INVALID',
      `--crd-rules ${path}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    return parseRuleConfig(text, `--crd-rules ${path}`);
  } catch (error) {
    if (error instanceof RuleConfigError) throw new CommandError('INPUT_INVALID', error.message);
    throw error;
  }
}
