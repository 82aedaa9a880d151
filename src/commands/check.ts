import { checkObject, type CheckResult, type DefaultedField } from '../admission/check-object.ts';
import { formatFieldError } from '../contract/field-error.ts';
import { requiredString, stringList, stringOption, UsageError, type Command } from './command.ts';
import { loadRegistry } from './contracts.ts';
import { formatObject, readObjectFile, type FileFormat } from './object-file.ts';

export const checkCommand: Command = {
  name: 'check',
  summary: 'decide offline what the webhooks would decide for an object (for CI and GitOps pipelines)',
  usage: `crdgate check -f FILE [--old FILE] [--operation CREATE|UPDATE|DELETE] [-o yaml|json] [--contract MODULE]...

  Runs the mutating webhook (defaults) and then the validating webhook, as the API server would, and names
  each field the defaults would set. The operation defaults to UPDATE with --old, else CREATE. For DELETE,
  -f is the object being deleted.
  -o yaml|json   print the object as it would be stored (defaults applied) on standard output; the decision
                 then goes to standard error
  Exit code 0: allowed; 1: denied (the reasons are printed); 2: bad usage or an unreadable file.`,
  options: {
    file: { type: 'string', short: 'f' },
    old: { type: 'string' },
    operation: { type: 'string' },
    output: { type: 'string', short: 'o' },
    contract: { type: 'string', multiple: true },
  },
  async run(values, io) {
    const file = requiredString(values, 'file');
    const oldFile = stringOption(values, 'old');
    const operation = (stringOption(values, 'operation') ?? (oldFile ? 'UPDATE' : 'CREATE')).toUpperCase();
    if (operation !== 'CREATE' && operation !== 'UPDATE' && operation !== 'DELETE') {
      throw new UsageError(`--operation must be CREATE, UPDATE or DELETE, got "${operation}"`);
    }
    if (operation === 'UPDATE' && !oldFile) throw new UsageError('--operation UPDATE needs --old FILE');
    const output = outputFormat(stringOption(values, 'output'));
    const { object } = await readObjectFile(file, io.cwd);
    const oldObject = oldFile ? (await readObjectFile(oldFile, io.cwd)).object : null;
    const registry = await loadRegistry(stringList(values, 'contract'), io.cwd);

    const result = checkObject(registry, { operation, object, oldObject });
    // With -o, standard output carries the object alone, so that it can be piped on.
    const report = output === undefined ? io.stdout : io.stderr;
    for (const warning of result.warnings) report(`warning: ${warning}\n`);
    if (!result.allowed) {
      report(`denied: ${denial(result)}\n`);
      return 1;
    }
    report(allowedLine(result.defaults));
    if (output !== undefined) io.stdout(formatObject(result.object, output));
    return 0;
  },
};

function outputFormat(text: string | undefined): FileFormat | undefined {
  if (text === undefined || text === 'yaml' || text === 'json') return text;
  throw new UsageError(`-o must be yaml or json, got "${text}"`);
}

/** One line per cause reads better in a pipeline log than the API server's single comma-joined message. */
function denial(result: CheckResult): string {
  return result.causes.length > 0
    ? `${result.code}\n${result.causes.map((c) => `  ${formatFieldError(c)}`).join('\n')}`
    : `${result.code}: ${result.message}`;
}

function allowedLine(defaults: readonly DefaultedField[]): string {
  if (defaults.length === 0) return 'allowed\n';
  const fields = defaults.map((d) => `  ${d.field}: ${'value' in d ? JSON.stringify(d.value) : '(removed)'}`);
  return `allowed; defaults would set ${defaults.length} field(s):\n${fields.join('\n')}\n`;
}
