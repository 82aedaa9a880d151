import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { type Contract, type CrdOwner } from '../contract/contract-definition.ts';
import { ContractDefinitionError, defineContract } from '../contract/define-contract.ts';
import { fromCrd, readCrdFile, type CrdContractParts } from '../contract/from-crd.ts';
import { createSchemaCompiler } from '../contract/schema/compile-schema.ts';
import { specMappingConversion } from '../conversion/spec-mapping-conversion.ts';
import { searchExample, type ExampleJudge } from './crd-example.ts';
import { describeValue } from '../contract/values/describe-value.ts';
import { formatFieldError, type FieldError } from '../contract/values/field-error.ts';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import type { CrdScaffold } from './from-crd-sources.ts';
import { kindIdentifiers } from './scaffold-names.ts';

/** What `init --from-crd FILE` scaffolds from: the file's text, copied into the project, and what it says. */
export interface CrdSource {
  scaffold: CrdScaffold;
  crdText: string;
  /** The CustomResourceDefinition read, as its file has it. */
  crd: unknown;
}

/** How the example object is judged: by kube-apiserver's pipeline where it can be, and by crdgate's schema check. */
export interface ExampleJudging {
  /**
   * The API server's judge of objects of `crd` (the CRD as the file has it), or why there is none here (the engine
   * is not built): the example is then judged by crdgate's schema check alone.
   */
  apiServer(crd: unknown): ExampleJudge | { unavailable: string };
  /** An example of one's own (`--example FILE`), taken in place of one made from the schema. */
  given?: { file: string; object: unknown };
}

/** How init made the example, for what it says. */
export interface ExampleReport {
  /** Who judged it: the API server engine, or crdgate's schema check alone (and why). */
  judgedBy: { apiServer: true } | { apiServer: false; unavailable: string };
  /** How many objects the search tried (none for a given example). */
  tries: number;
}

/**
 * Reads the CRD of `file` (the one named `crdName` in a file of several) and checks that the contract the project
 * will make from it loads: a contract that owns the CRD, or with `crdOwner: 'external'` one that guards an operator's
 * CRD without taking it over. Throws a ContractDefinitionError naming the file and the problem otherwise. Makes the
 * example object (or takes the given one), judged as `judging` says; a given one the judge refuses is an error.
 */
export async function readCrdSource(
  file: string,
  cwd: string,
  crdName: string | undefined,
  crdOwner: CrdOwner = 'crdgate',
  judging?: ExampleJudging,
): Promise<CrdSource & { exampleReport: ExampleReport }> {
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
  let contract!: Contract;
  try {
    contract = contractAsScaffolded(parts, crdOwner);
  } catch (error) {
    if (!(error instanceof ContractDefinitionError)) throw error;
    fail(`the CRD does not make a contract that loads: ${error.message}`);
  }

  const { identity } = parts;
  const hub = parts.versions.find((version) => version.name === parts.hub)!;
  // The hub's schema alone: the whole registry would compile every version.
  const validate = createSchemaCompiler().compile(
    contract.versions.find((version) => version.name === hub.name)!.schema,
  );
  const apiServer = judging?.apiServer(crd) ?? { unavailable: 'no judge was given' };
  // The API server first (it refuses what never reaches a webhook), then crdgate's own check of the schema.
  const judge: ExampleJudge = (object) => {
    const refused = 'unavailable' in apiServer ? [] : apiServer(object);
    return refused.length > 0 ? refused : validate(object);
  };
  const base = { apiVersion: `${identity.group}/${hub.name}`, kind: identity.kind, metadata: { name: 'example' } };
  let example: KubeObject;
  let refusal: readonly FieldError[];
  let tries = 0;
  if (judging?.given !== undefined) {
    example = givenExample(judging.given, base, fail);
    refusal = judge(example);
    if (refusal.length > 0)
      fail(`--example ${judging.given.file} is refused: ${refusal.map(formatFieldError).join('; ')}`);
  } else {
    const search = searchExample(base, hub.schema, judge);
    ({ object: example, refusal, tries } = search);
  }
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
    shape: {
      scope: identity.scope,
      versions: parts.versions.map((version) => version.name),
      hub: parts.hub,
      storage: parts.versions.find((version) => version.storage)?.name ?? parts.hub,
    },
    crdFile: `crds/${basename(path)}`,
    crdOwner,
    ...(crdName === undefined ? {} : { crdName }),
    example,
    ...(refusal.length > 0 ? { exampleRefusal: refusal.map(formatFieldError) } : {}),
    specPruned:
      specSchema?.type === 'object' &&
      specSchema['x-kubernetes-preserve-unknown-fields'] !== true &&
      specSchema.additionalProperties === undefined,
    printerColumns: (hub.printerColumns ?? []).map((column) => column.name),
  };
  const judgedBy: ExampleReport['judgedBy'] =
    'unavailable' in apiServer ? { apiServer: false, unavailable: apiServer.unavailable } : { apiServer: true };
  return { scaffold, crdText, crd, exampleReport: { judgedBy, tries } };
}

/** The object of --example FILE, which must be of the CRD's kind in the hub version (the rules' version). */
function givenExample(
  given: { file: string; object: unknown },
  base: { apiVersion: string; kind: string },
  fail: (problem: string) => never,
): KubeObject {
  const object = given.object;
  if (!isPlainObject(object)) return fail(`--example ${given.file} must hold one object`);
  if (object['apiVersion'] !== base.apiVersion || object['kind'] !== base.kind)
    fail(
      `--example ${given.file} must be a ${base.kind} of ${base.apiVersion} (the hub, the version the rules are written against), not ${describeValue(object['kind'])} of ${describeValue(object['apiVersion'])}`,
    );
  const metadata = isPlainObject(object['metadata']) ? object['metadata'] : {};
  // The tests put it in a namespace of their own.
  const { namespace: _namespace, ...rest } = metadata;
  return { ...object, metadata: { ...rest, name: typeof rest['name'] === 'string' ? rest['name'] : 'example' } };
}

/**
 * The contract a project made with `init --from-crd` starts as: the CRD's parts, and for a CRD crdgate owns a
 * pass-through conversion for each version other than the hub (the scaffold's TODO), with the annotation its stash
 * needs. Throws a ContractDefinitionError when it does not load.
 */
export function contractAsScaffolded(parts: CrdContractParts, crdOwner: CrdOwner): Contract {
  const spokes =
    crdOwner === 'external'
      ? []
      : parts.versions.filter((version) => version.name !== parts.hub).map((version) => version.name);
  return defineContract({
    ...parts,
    conversions: Object.fromEntries(
      spokes.map((version) => [
        version,
        specMappingConversion({ mapping: { down: (spec) => ({ spec, lost: {} }), up: (spec) => spec } }),
      ]),
    ),
    ...(spokes.length > 0 ? { conversionAnnotation: `${parts.identity.group}/conversion-data` } : {}),
  });
}
