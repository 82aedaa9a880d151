import { compileClientFieldPaths, type ClientFieldPaths } from './client-field-paths.ts';
import { readKeysOf, readView } from './contract-reads.ts';
import { apiVersionOf, type Contract } from './contract-definition.ts';
import { checkContract } from './define-contract.ts';
import { transitionRule, type CompiledUpdateRule } from './fsa/evaluate/evaluate-transition.ts';
import { splitApiVersion } from './values/kube-object.ts';
import { scaleSubresourceWarnings } from './scale-subresource.ts';
import { createSchemaCompiler, type ObjectValidator } from './schema/compile-schema.ts';
import { VersionValidators } from './version-validators.ts';

/**
 * A contract with what is derived from it: its rules at start-up, its schemas' validators on first use (see
 * VersionValidators); each once, never per request.
 */
export interface CompiledContract {
  contract: Contract;
  /** Validators by version name, each compiled on first use. */
  validators: VersionValidators;
  /** `group/version` for each served version. */
  servedApiVersions: ReadonlySet<string>;
  /** The FSA's rule first, then the contract's own update rules. */
  updateRules: readonly CompiledUpdateRule[];
  /** Per spoke version: hub field paths in that version's words, for clients writing in it. */
  clientFieldPaths: ReadonlyMap<string, ClientFieldPaths>;
  /** What the self-check found worth a warning but not a refusal to load, as sentences (commands print them). */
  warnings: readonly string[];
  /**
   * The versions whose schema the API server is known to hold as the contract does, so that it has validated an
   * object written in one before calling the validating webhook, which does not validate it again (nor compiles a
   * validator for it). Known only by following the live CRD (serve, for a CRD someone else owns): empty otherwise.
   */
  enforcedSchemas: ReadonlySet<string>;
}

export interface ContractRegistry {
  readonly contracts: readonly CompiledContract[];
  /** The contract for a group and kind, or undefined when no contract knows it. */
  lookup(group: string, kind: string): CompiledContract | undefined;
}

export class ContractCompileError extends Error {
  override name = 'ContractCompileError';
}

/**
 * Compiles the contracts, each held to defineContract's rules first (it may have been made without it, or changed
 * since): a contract that breaks one throws a ContractDefinitionError, two contracts of one kind a
 * ContractCompileError.
 */
export function createContractRegistry(contracts: readonly Contract[]): ContractRegistry {
  return registryOfCheckedContracts(contracts.map((given) => checkContract(given)));
}

/**
 * The registry of contracts that checkContract has just returned, with no code of their makers run since (the
 * commands call every module's export first, then check each, naming its module in any error): checking each again
 * would take its fingerprint again, tens of milliseconds for an operator's CRD.
 */
export function registryOfCheckedContracts(contracts: readonly Contract[]): ContractRegistry {
  const compiler = createSchemaCompiler();
  const byGroupKind = new Map<string, CompiledContract>();
  const compiled = contracts.map((contract) => {
    const key = groupKindKey(contract.identity.group, contract.identity.kind);
    if (byGroupKind.has(key))
      throw new ContractCompileError(`two contracts declare ${contract.identity.kind}.${contract.identity.group}`);
    const validators = new VersionValidators(
      new Map(contract.versions.map((version) => [version.name, () => compiler.compile(version.schema)])),
    );
    const servedApiVersions = new Set(
      contract.versions.filter((v) => v.served).map((v) => apiVersionOf(contract, v.name)),
    );
    // The contract's own rules are shown what it declares it reads (the machine, crdgate's, reads what it knows).
    const reads = readKeysOf(contract);
    const ownRules = (contract.updateRules ?? []).map(
      (rule): CompiledUpdateRule =>
        ({ oldObject, object }) =>
          rule({ oldObject: readView(reads, oldObject), object: readView(reads, object) }),
    );
    const updateRules = [...(contract.transitions ? [transitionRule(contract.transitions)] : []), ...ownRules];
    const entry: CompiledContract = {
      contract,
      validators,
      servedApiVersions,
      updateRules,
      clientFieldPaths: compileFieldPaths(contract),
      warnings: scaleSubresourceWarnings(contract),
      enforcedSchemas: new Set<string>(),
    };
    byGroupKind.set(key, entry);
    return entry;
  });
  return {
    contracts: compiled,
    lookup: (group, kind) => byGroupKind.get(groupKindKey(group, kind)),
  };
}

function compileFieldPaths(contract: Contract): Map<string, ClientFieldPaths> {
  const schemaOf = (name: string) => contract.versions.find((version) => version.name === name)!.schema;
  const compiled = new Map<string, ClientFieldPaths>();
  for (const [version, conversion] of Object.entries(contract.conversions)) {
    const input = {
      hubVersion: contract.hub,
      spokeVersion: version,
      hubSchema: schemaOf(contract.hub),
      spokeSchema: schemaOf(version),
      ...(conversion.hubToSpokePaths ? { declared: conversion.hubToSpokePaths } : {}),
    };
    compiled.set(version, compileClientFieldPaths(input));
  }
  return compiled;
}

/** The contract that owns an object's apiVersion and kind. */
export function lookupByApiVersion(
  registry: ContractRegistry,
  apiVersion: string,
  kind: string,
): CompiledContract | undefined {
  return registry.lookup(splitApiVersion(apiVersion).group, kind);
}

function groupKindKey(group: string, kind: string): string {
  return `${kind}.${group}`;
}

/**
 * The registry with one contract's validators replaced (by version name; versions not named keep theirs), every
 * other contract shared as it is: what `serve --owner-schema live` swaps in when the owner's CRD changes. A new
 * registry, so that requests being decided finish with the validators they started with.
 */
export function withValidators(
  registry: ContractRegistry,
  group: string,
  kind: string,
  replaced: ReadonlyMap<string, ObjectValidator>,
): ContractRegistry {
  return withContract(registry, group, kind, (entry) => ({ ...entry, validators: entry.validators.with(replaced) }));
}

/** The registry with the versions whose schema the API server holds as one contract does (see enforcedSchemas). */
export function withEnforcedSchemas(
  registry: ContractRegistry,
  group: string,
  kind: string,
  versions: ReadonlySet<string>,
): ContractRegistry {
  return withContract(registry, group, kind, (entry) => ({ ...entry, enforcedSchemas: new Set(versions) }));
}

function withContract(
  registry: ContractRegistry,
  group: string,
  kind: string,
  change: (entry: CompiledContract) => CompiledContract,
): ContractRegistry {
  const key = groupKindKey(group, kind);
  const byGroupKind = new Map<string, CompiledContract>();
  const contracts = registry.contracts.map((entry) => {
    const ofEntry = groupKindKey(entry.contract.identity.group, entry.contract.identity.kind);
    const next = ofEntry === key ? change(entry) : entry;
    byGroupKind.set(ofEntry, next);
    return next;
  });
  if (!byGroupKind.has(key)) throw new ContractCompileError(`no contract declares ${kind}.${group}`);
  return { contracts, lookup: (g, k) => byGroupKind.get(groupKindKey(g, k)) };
}
