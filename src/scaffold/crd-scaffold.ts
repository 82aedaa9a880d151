import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { type Contract, type CrdOwner } from '../contract/contract-definition.ts';
import { ContractDefinitionError, defineContract } from '../contract/define-contract.ts';
import { fromCrd, readCrdFile } from '../contract/from-crd.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { specMappingConversion } from '../conversion/spec-mapping-conversion.ts';
import { exampleSpec } from './crd-example.ts';
import type { CrdScaffold } from './from-crd-sources.ts';
import { kindIdentifiers } from './scaffold-names.ts';

/** What `init --from-crd FILE` scaffolds from: the file's text, copied into the project, and what it says. */
export interface CrdSource {
  scaffold: CrdScaffold;
  crdText: string;
  /** The CustomResourceDefinition read, as its file has it. */
  crd: unknown;
}

/**
 * Reads the CRD of `file` (the one named `crdName` in a file of several) and checks that the contract the project
 * will make from it loads: a contract that owns the CRD, or with `crdOwner: 'external'` one that guards an operator's
 * CRD without taking it over. Throws a ContractDefinitionError naming the file and the problem otherwise.
 */
export async function readCrdSource(
  file: string,
  cwd: string,
  crdName: string | undefined,
  crdOwner: CrdOwner = 'crdgate',
): Promise<CrdSource> {
  const path = resolve(cwd, file);
  const fail = (problem: string): never => {
    throw new ContractDefinitionError(`--from-crd ${file}: ${problem}`);
  };
  let crdText = '';
  try {
    crdText = await readFile(path, 'utf8');
  } catch (error) {
    fail(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const withoutPrefix = (error: unknown, prefix: RegExp) => {
    if (!(error instanceof ContractDefinitionError)) throw error;
    return fail(error.message.replace(prefix, ''));
  };
  let crd: unknown;
  try {
    crd = readCrdFile(path, crdName === undefined ? {} : { name: crdName });
  } catch (error) {
    withoutPrefix(error, /^readCrdFile: [^:]*: /);
  }
  let parts!: ReturnType<typeof fromCrd>;
  try {
    parts = fromCrd(crd, crdOwner === 'external' ? { crdOwner } : {});
  } catch (error) {
    withoutPrefix(error, /^fromCrd: /);
  }
  // The contract as the project makes it: a pass-through conversion for each version other than the hub, unless
  // the owner converts.
  const spokes =
    crdOwner === 'external'
      ? []
      : parts.versions.filter((version) => version.name !== parts.hub).map((version) => version.name);
  let contract!: Contract;
  try {
    contract = defineContract({
      ...parts,
      conversions: Object.fromEntries(
        spokes.map((version) => [
          version,
          specMappingConversion({ mapping: { down: (spec) => ({ spec, lost: {} }), up: (spec) => spec } }),
        ]),
      ),
      ...(spokes.length > 0 ? { conversionAnnotation: `${parts.identity.group}/conversion-data` } : {}),
    });
  } catch (error) {
    if (!(error instanceof ContractDefinitionError)) throw error;
    fail(`the CRD does not make a contract that loads: ${error.message}`);
  }

  const { identity } = parts;
  const hub = parts.versions.find((version) => version.name === parts.hub)!;
  const spec = exampleSpec(hub.schema);
  const example = {
    apiVersion: `${identity.group}/${hub.name}`,
    kind: identity.kind,
    metadata: { name: 'example' },
    ...(spec === undefined ? {} : { spec }),
  };
  const validate = createContractRegistry([contract]).contracts[0]!.validators.get(hub.name)!;
  const specSchema = hub.schema.properties?.['spec'];
  const scaffold: CrdScaffold = {
    names: {
      group: identity.group,
      kind: identity.kind,
      plural: identity.plural,
      singular: identity.singular,
      ...kindIdentifiers(identity.kind),
      project: `${identity.singular}-contract`,
    },
    shape: { scope: identity.scope, versions: parts.versions.map((version) => version.name), hub: parts.hub },
    crdFile: `crds/${basename(path)}`,
    crdOwner,
    ...(crdName === undefined ? {} : { crdName }),
    ...(validate(example).length === 0 ? { example } : {}),
    specPruned:
      specSchema?.type === 'object' &&
      specSchema['x-kubernetes-preserve-unknown-fields'] !== true &&
      specSchema.additionalProperties === undefined,
    printerColumns: (hub.printerColumns ?? []).map((column) => column.name),
  };
  return { scaffold, crdText, crd };
}
