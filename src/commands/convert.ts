import { asReadByTheApiServer } from '../api-server-engine/contract-crd.ts';
import { EngineUnavailableError } from '../api-server-engine/engine.ts';
import { lookupByApiVersion } from '../contract/registry.ts';
import { ConversionError } from '../conversion/conversion-error.ts';
import { convertObject } from '../conversion/convert-object.ts';
import { requiredString, stringList, UsageError, type Command } from './command.ts';
import { CommandError } from '../errors.ts';
import { checkContractRules, loadRegistry } from './contracts.ts';
import { formatObject, readObjectFile } from './object-file.ts';

export const convertCommand: Command = {
  name: 'convert',
  summary: 'convert an object to another served version, as the conversion webhook would',
  usage: `crdgate convert -f FILE --to API_VERSION [--contract MODULE]...

  Reads one object (YAML or JSON; - for standard input) and prints it in API_VERSION, in the same format, as
  kube-apiserver would serve it in that version (its schema prunes and defaults what the conversion returns).
  What an older version cannot hold is kept in the contract's conversion annotation, and restored on the way up.
  Exit code 0: converted; 1: the object cannot be converted (the reason is printed); 2: bad usage or input.`,
  options: {
    file: { type: 'string', short: 'f' },
    to: { type: 'string' },
    contract: { type: 'string', multiple: true },
  },
  async run(values, io) {
    const file = requiredString(values, 'file');
    const to = requiredString(values, 'to');
    const { object, format } = await readObjectFile(file, io.cwd);
    const modules = stringList(values, 'contract');
    const registry = await loadRegistry(modules, io.cwd);
    const ruleWarnings = checkContractRules(registry);
    if (ruleWarnings !== '') io.stderr(ruleWarnings);
    const compiled = lookupByApiVersion(registry, String(object.apiVersion), String(object.kind));
    if (!compiled) {
      // Without --contract only the built-in example is loaded: the user's own kind is unknown until they name it.
      const hint =
        modules.length === 0
          ? ': no --contract was given, so only the built-in GeoDatabase example is loaded; name the module of its contract with --contract MODULE'
          : '';
      throw new UsageError(`${file}: crdgate has no contract for ${object.kind} in ${object.apiVersion}${hint}`);
    }
    if (!compiled.servedApiVersions.has(to)) {
      throw new UsageError(
        `--to ${to} is not a served version of ${object.kind} (served: ${[...compiled.servedApiVersions].join(', ')})`,
      );
    }
    try {
      // As `kubectl get` in that version shows it: the API server prunes and defaults what a conversion returns.
      io.stdout(formatObject(asReadByTheApiServer(compiled, convertObject(compiled.contract, object, to)), format));
      return 0;
    } catch (error) {
      if (error instanceof EngineUnavailableError) throw new CommandError('ENGINE_UNAVAILABLE', error.message);
      if (!(error instanceof ConversionError)) throw error;
      io.stderr(`${error.code}: ${error.message}\n`);
      return 1;
    }
  },
};
