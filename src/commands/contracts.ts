import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ContractDefinitionError, type Contract } from '../contract/define-contract.ts';
import { ContractCompileError, createContractRegistry, type ContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { UsageError } from './command.ts';

/**
 * The built-in GeoDatabase contract plus each `--contract MODULE`. A module's default export is a contract or a
 * function returning one (so that a module does no work when imported).
 */
export async function loadRegistry(modules: string[], cwd: string): Promise<ContractRegistry> {
  try {
    const contracts: Contract[] = [geoDatabaseContract()];
    for (const module of modules) contracts.push(await loadContractModule(module, cwd));
    return createContractRegistry(contracts);
  } catch (error) {
    // A broken contract (or transition machine) is a configuration error: one line, exit 2, never a half-started server.
    if (error instanceof ContractDefinitionError || error instanceof ContractCompileError) throw new UsageError(error.message);
    throw error;
  }
}

async function loadContractModule(module: string, cwd: string): Promise<Contract> {
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(resolve(cwd, module)).href)) as { default?: unknown }).default;
  } catch (error) {
    throw new UsageError(`--contract ${module}: cannot load the module: ${(error as Error).message}`);
  }
  const contract = typeof exported === 'function' ? (exported as () => unknown)() : exported;
  if (!isContract(contract)) {
    throw new UsageError(`--contract ${module}: the default export must be a contract made with defineContract (or a function returning one)`);
  }
  return contract;
}

function isContract(value: unknown): value is Contract {
  const candidate = value as Partial<Contract> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.storageVersion === 'string' && Array.isArray(candidate.versions);
}
