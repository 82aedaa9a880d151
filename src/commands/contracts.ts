import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { contractCrdRefusal } from '../api-server-engine/contract-crd.ts';
import { CrdUnservableError, EngineUnavailableError } from '../api-server-engine/engine.ts';
import { type Contract } from '../contract/contract-definition.ts';
import { checkContract, ContractDefinitionError } from '../contract/define-contract.ts';
import { formatFieldError } from '../contract/values/field-error.ts';
import { crdgateCacheDir } from '../control-plane/cached-build.ts';
import {
  ContractCompileError,
  createContractRegistry,
  registryOfCheckedContracts,
  type ContractRegistry,
} from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { CommandError } from '../errors.ts';

/**
 * The contracts named by `--contract MODULE`, or the built-in GeoDatabase example when none is named: a user's
 * installation serves, renders and lists only the kinds the user asked for. A module's default export is a
 * contract or a function returning one (so that a module does no work when imported).
 */
export async function loadRegistry(modules: string[], cwd: string): Promise<ContractRegistry> {
  return registryOfExports(await importContractModules(modules, cwd));
}

/** Each module's default export, imported in turn; one that cannot be loaded is CONTRACT_INVALID naming it. */
export async function importContractModules(modules: readonly string[], cwd: string): Promise<ContractModuleExport[]> {
  const exports: ContractModuleExport[] = [];
  for (const module of modules) exports.push({ module, exported: await importDefaultExport(module, cwd) });
  return exports;
}

/** What a `--contract` module exports by default, and the module as the user named it. */
export interface ContractModuleExport {
  module: string;
  exported: unknown;
}

/**
 * The registry of the contracts the modules export, or of the built-in example when there are none. Whatever a
 * module exports, a broken contract (or FSA) is a configuration error: one line, exit 2, never a
 * half-started server or a stack trace.
 */
export function registryOfExports(exports: readonly ContractModuleExport[]): ContractRegistry {
  try {
    if (exports.length === 0) return createContractRegistry([geoDatabaseContract()]);
    // Every module's export is called before any contract is checked, so that none can change one checked already.
    const given = exports.map(contractOfExport);
    return registryOfCheckedContracts(given.map(checkedContract));
  } catch (error) {
    if (error instanceof ContractDefinitionError || error instanceof ContractCompileError)
      throw new CommandError('CONTRACT_INVALID', error.message);
    throw error;
  }
}

/**
 * What the contracts' self-check found worth a warning but not a refusal to load (a scale subresource whose field
 * no classifier reads, say), one `warning:` line each for a command's stderr; empty when nothing is.
 */
export function contractWarningLines(registry: ContractRegistry): string {
  return registry.contracts
    .flatMap((compiled) =>
      compiled.warnings.map(
        (warning) =>
          `warning: contract ${compiled.contract.identity.plural}.${compiled.contract.identity.group}: ${warning}\n`,
      ),
    )
    .join('');
}

/**
 * Stops a command that writes or judges a contract's CRD when kube-apiserver would refuse that CRD for its CEL rules
 * (a syntax error, a function the API server's version does not have, an estimated cost over its limits), in the
 * API server's own words, so that a broken rule is found at load rather than at `kubectl apply`. Where the API
 * server engine is not installed (crdgate's image, which serves the webhook only) the rules cannot be checked:
 * one `warning:` line per contract with rules says so, and the command goes on.
 */
export function checkContractRules(registry: ContractRegistry, env: NodeJS.ProcessEnv = process.env): string {
  const acceptedCrds = join(crdgateCacheDir(env), 'api-server-engine', 'accepted-crds');
  const unchecked: string[] = [];
  for (const compiled of registry.contracts) {
    const name = `${compiled.contract.identity.plural}.${compiled.contract.identity.group}`;
    let refusal;
    try {
      refusal = contractCrdRefusal(compiled, { acceptedCrds });
    } catch (error) {
      if (error instanceof EngineUnavailableError) {
        unchecked.push(
          `warning: contract ${name}: its CEL rules were not checked against kube-apiserver's rules: ${error.message}\n`,
        );
        continue;
      }
      if (error instanceof CrdUnservableError)
        throw new CommandError('CONTRACT_INVALID', `contract ${name}: ${error.message}`);
      throw error;
    }
    if (refusal.length > 0)
      throw new CommandError(
        'CONTRACT_INVALID',
        `contract ${name}: kube-apiserver would refuse its CRD: ${refusal.map(formatFieldError).map(oneLine).join('; ')}`,
      );
  }
  return unchecked.join('');
}

/**
 * A CEL compile error comes as several lines (the expression, a caret under the fault): a usage error is one line on
 * standard error, so its lines are joined.
 */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

/** Where a `--contract` module is, and how a crdgate started in the same working directory names it. */
export interface ContractModuleLocation {
  url: string;
  /** A file as `./path` relative to the working directory, a package by its specifier. */
  argument: string;
}

/**
 * `--contract` takes a file (relative to the working directory, or absolute) or, when no such file exists and the
 * text is not a path, a package specifier (`@acme/bucket-contract`, `acme-contracts/bucket`) resolved from the
 * working directory as that directory's own code would resolve it.
 */
export function locateContractModule(module: string, cwd: string): ContractModuleLocation {
  const file = resolve(cwd, module);
  const looksLikePath =
    isAbsolute(module) || module.startsWith('./') || module.startsWith('../') || module.startsWith(`.${sep}`);
  if (looksLikePath || existsSync(file)) {
    if (!existsSync(file)) throw new CommandError('CONTRACT_INVALID', `--contract ${module}: no such file (${file})`);
    const fromCwd = relative(cwd, file);
    const argument = fromCwd.startsWith('..') || isAbsolute(fromCwd) ? file : `./${fromCwd.split(sep).join('/')}`;
    return { url: pathToFileURL(file).href, argument };
  }
  try {
    return { url: pathToFileURL(createRequire(join(cwd, 'package.json')).resolve(module)).href, argument: module };
  } catch (error) {
    throw new CommandError(
      'CONTRACT_INVALID',
      `--contract ${module}: no such file, and no package of that name resolves from ${cwd} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

async function importDefaultExport(module: string, cwd: string): Promise<unknown> {
  const { url } = locateContractModule(module, cwd);
  try {
    return ((await import(url)) as { default?: unknown }).default;
  } catch (error) {
    // defineContract called while the module loads: its message says what is wrong, and where is the module.
    if (error instanceof ContractDefinitionError)
      throw new CommandError('CONTRACT_INVALID', `--contract ${module}: ${error.message}`);
    throw new CommandError(
      'CONTRACT_INVALID',
      `--contract ${module}: cannot load the module: ${describeLoadError(error)}`,
    );
  }
}

/** What a module's default export is or returns, when it looks like a contract; anything else is CONTRACT_INVALID. */
function contractOfExport({ module, exported }: ContractModuleExport): { module: string; contract: Contract } {
  let contract: unknown = exported;
  try {
    if (typeof exported === 'function') contract = (exported as () => unknown)();
  } catch (error) {
    throw invalidModule(
      module,
      error instanceof ContractDefinitionError
        ? error.message
        : `the default export failed: ${describeLoadError(error)}`,
    );
  }
  if (!isContract(contract))
    throw invalidModule(
      module,
      'the default export must be a contract made with defineContract (or a function returning one)',
    );
  return { module, contract };
}

/** A module's contract held to defineContract's rules (whatever made it); a broken one is CONTRACT_INVALID naming it. */
function checkedContract({ module, contract }: { module: string; contract: Contract }): Contract {
  try {
    return checkContract(contract);
  } catch (error) {
    throw error instanceof ContractDefinitionError ? invalidModule(module, error.message) : error;
  }
}

const invalidModule = (module: string, problem: string) =>
  new CommandError('CONTRACT_INVALID', `--contract ${module}: ${problem}`);

/**
 * The error with where it happened: a syntax error's message alone ("Expression expected") does not say which file
 * or line, while its stack starts with `file:line`; an error thrown while the module runs names it in its first frame.
 */
export function describeLoadError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const stack = error.stack ?? '';
  const syntaxLocation = /^((?:file:\/\/)?\/\S+:\d+)\n/.exec(stack)?.[1];
  if (syntaxLocation) return `${syntaxLocation}: ${error.message}`;
  const frame = /\n\s+at (?:.*? \()?((?:file:\/\/)?\/[^\s()]+:\d+:\d+)\)?/.exec(stack)?.[1];
  return frame && !frame.includes('/node_modules/') ? `${error.message} (at ${frame})` : error.message;
}

function isContract(value: unknown): value is Contract {
  const candidate = value as Partial<Contract> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.storageVersion === 'string' &&
    Array.isArray(candidate.versions)
  );
}
