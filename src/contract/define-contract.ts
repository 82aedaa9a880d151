import { brandError, isBrandedError } from '../errors.ts';
import { declaredPathProblem, undeclarablePaths } from './client-field-paths.ts';
import { ownsCrd, type Contract, type ContractDefinition } from './contract-definition.ts';
import { contractReadsProblems } from './contract-reads.ts';
import { crdAnnotationProblems, crdNameProblems } from './crd-names.ts';
import { defaultsProblems } from './default-problems.ts';
import { fieldProtectionProblems, type AnnotationProtection, type FieldProtection } from './deletion-rules.ts';
import { contractFingerprint } from './contract-fingerprint.ts';
import { definitionShapeProblems } from './definition-shape.ts';
import { servedKindOf } from './owner-crd-drift.ts';
import { describeOption } from './values/option-shape.ts';
import { checkMachine } from './fsa/check-machine.ts';
import { classifierReachProblems } from './fsa/classifier-reach.ts';
import { scaleSubresourceProblems } from './scale-subresource.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { schemaShapeProblems } from './schema/schema-shape.ts';
import { checkStructural } from './schema/structural-check.ts';

export class ContractDefinitionError extends Error {
  override name = 'ContractDefinitionError';

  constructor(message: string) {
    super(message);
    brandError(this, 'ContractDefinitionError');
  }

  /** Holds for the error of another copy of crdgate too: a user's contract calls defineContract from its own. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBrandedError(value, 'ContractDefinitionError');
  }
}

/**
 * Checks the parts of a contract that no type can express, so a broken contract stops the server at start-up
 * instead of misbehaving on the first request. A definition may come from code no type checked: every option's
 * shape is checked first, and its rules only once each option has its type.
 */
export function defineContract<Spec = unknown>(definition: ContractDefinition<Spec>): Contract<Spec> {
  const problems = contractProblems(definition, false);
  if (problems.length > 0) throw invalidContract(definition, problems);
  const storage = definition.versions.find((v) => v.storage);
  const contract = { ...definition, storageVersion: storage!.name };
  const fingerprint = contractFingerprint(contract);
  if (fingerprint !== undefined) checked.set(contract, fingerprint);
  return contract;
}

/**
 * The contracts defineContract made and found sound, each with its fingerprint then: checkContract takes one that
 * is still the same for checked, without walking its schemas again (megabytes for an operator's CRD, about half a
 * gate's start-up with many). One changed since, or made by another copy of crdgate, is checked.
 */
const checked = new WeakMap<object, string>();

/**
 * A contract crdgate is handed rather than makes: a plain object given to contractTester, a module's default
 * export, a contract changed after defineContract made it. It is held to defineContract's rules, and its
 * storageVersion to its versions; it is returned as it is, or a ContractDefinitionError says what is wrong.
 */
export function checkContract(value: unknown): Contract {
  if (
    typeof value === 'object' &&
    value !== null &&
    checked.has(value) &&
    checked.get(value) === contractFingerprint(value)
  )
    return value as Contract;
  const problems = contractProblems(value, true);
  if (problems.length === 0) {
    const contract = value as Contract;
    const storage = contract.versions.find((v) => v.storage)!.name;
    if (contract.storageVersion !== storage)
      problems.push(
        `storageVersion must be the storage version's name, ${storage}, got ${JSON.stringify(contract.storageVersion)}`,
      );
  }
  if (problems.length > 0) throw invalidContract(value, problems);
  return value as Contract;
}

function invalidContract(value: unknown, problems: readonly string[]): ContractDefinitionError {
  const identity = (value as { identity?: { plural?: unknown; group?: unknown } } | null | undefined)?.identity;
  const name =
    typeof identity?.plural === 'string' && typeof identity.group === 'string'
      ? `contract ${identity.plural}.${identity.group}`
      : 'the contract';
  return new ContractDefinitionError(`${name} is invalid: ${problems.join('; ')}`);
}

function contractProblems(value: unknown, made: boolean): string[] {
  const shape = definitionShapeProblems(value, made);
  if (shape.length > 0) return shape;
  const definition = value as ContractDefinition;
  const problems: string[] = [];
  const { identity, versions, hub, conversions } = definition;
  const names = versions.map((v) => v.name);
  problems.push(...crdNameProblems(identity, names, definition.crdAnnotations));
  if (definition.crdAnnotations !== undefined) problems.push(...crdAnnotationProblems(definition.crdAnnotations));
  if (versions.length === 0) problems.push('at least one version is required');
  if (new Set(names).size !== names.length) problems.push(`version names repeat: ${names.join(', ')}`);
  const storageVersions = versions.filter((v) => v.storage);
  if (storageVersions.length !== 1)
    problems.push(`exactly one version must be the storage version, found ${storageVersions.length}`);
  // The API server takes an unserved storage version; the storage migration crdgate renders for a CRD it owns reads
  // and writes objects in it.
  if (storageVersions[0] && !storageVersions[0].served && ownsCrd(definition))
    problems.push(
      `storage version ${storageVersions[0].name} must be served: crdgate's storage migration reads and writes objects in it`,
    );
  if (!names.includes(hub)) problems.push(`hub "${hub}" is not one of the versions (${names.join(', ')})`);
  problems.push(...crdOwnerProblems(definition));
  // A CRD someone else owns is converted by its owner's webhook: crdgate's webhooks see the hub only.
  for (const name of ownsCrd(definition) ? names : []) {
    if (name !== hub && conversions[name] === undefined)
      problems.push(`version ${name} has no conversion to the hub ${hub}`);
  }
  const unstructural = new Set<string>();
  for (const version of versions) {
    if (version.deprecationWarning !== undefined && !version.deprecated) {
      problems.push(`version ${version.name} has a deprecationWarning but is not deprecated`);
    }
    // The API server's rules for the version's schema, in its words, so a contract loads when its CRD would; its
    // keywords' types first, which the API server reads before any rule.
    const statusSubresource = version.subresources?.status !== undefined && version.subresources.status !== null;
    const keywordTypes = schemaShapeProblems(version.schema);
    const schemaProblems =
      keywordTypes.length > 0 ? keywordTypes : checkStructural(version.schema, { statusSubresource });
    if (schemaProblems.length > 0) unstructural.add(version.name);
    for (const problem of schemaProblems) problems.push(`version ${version.name}: ${problem}`);
  }
  for (const [name, conversion] of Object.entries(conversions)) {
    if (name === hub) problems.push(`the hub ${hub} must not have a conversion of its own`);
    else if (!names.includes(name)) problems.push(`conversion for unknown version ${name}`);
    if (conversion.usesStash && definition.conversionAnnotation === undefined) {
      problems.push(
        `the ${name} conversion keeps what ${name} cannot hold in the stash: set conversionAnnotation (e.g. "${identity.group}/conversion-data")`,
      );
    }
    problems.push(...hubToSpokePathProblems(definition, name, unstructural));
  }
  // The checks that walk the hub's schema walk only one the API server would take: a broken one is reported above,
  // and walking it could only add noise (or trip on a keyword of the wrong type).
  const hubSchema = unstructural.has(hub) ? undefined : versions.find((version) => version.name === hub)?.schema;
  if (definition.transitions) {
    problems.push(...checkMachine(definition.transitions).map((problem) => `transitions: ${problem}`));
    // Against the hub's schema: what the machine's classifiers compare is the hub's spec.
    if (hubSchema !== undefined)
      problems.push(
        ...classifierReachProblems(definition.transitions.classifiers, hubSchema).map(
          (problem) => `transitions: ${problem}`,
        ),
      );
  }
  problems.push(...scaleSubresourceProblems(definition));
  problems.push(...defaultsProblems(definition, hubSchema));
  problems.push(...deletionRuleProblems(definition, hubSchema));
  if (definition.reads !== undefined) problems.push(...contractReadsProblems(definition.reads));
  return problems;
}

/**
 * A conversion's declared paths: each written as a path, and (when both schemas are structural, so they can be
 * walked) a field of the hub's schema mapped to one of the spoke's. A typo is caught here, not on a request.
 */
function hubToSpokePathProblems(
  definition: ContractDefinition,
  version: string,
  unstructural: ReadonlySet<string>,
): string[] {
  const declared = definition.conversions[version]?.hubToSpokePaths ?? {};
  const problems: string[] = [];
  for (const [from, to] of Object.entries(declared)) {
    const problem = declaredPathProblem(from, to);
    if (problem) problems.push(`the ${version} conversion's hubToSpokePaths: ${problem}`);
  }
  const schemaOf = (name: string) => definition.versions.find((candidate) => candidate.name === name)?.schema;
  const hubSchema = schemaOf(definition.hub);
  const spokeSchema = schemaOf(version);
  if (
    problems.length > 0 ||
    hubSchema === undefined ||
    spokeSchema === undefined ||
    unstructural.has(definition.hub) ||
    unstructural.has(version)
  )
    return problems;
  const lacking = undeclarablePaths({
    hubVersion: definition.hub,
    spokeVersion: version,
    hubSchema,
    spokeSchema,
    declared,
  });
  return lacking.length > 0
    ? [`the ${version} conversion's hubToSpokePaths declare paths its schemas lack: ${lacking.join('; ')}`]
    : [];
}

function crdOwnerProblems(definition: ContractDefinition): string[] {
  const { crdOwner, ownerCrd, identity, hub, versions } = definition;
  const problems: string[] = [];
  if (crdOwner === 'external') {
    // The API server converts a request to the version the webhooks register for only when that version is served.
    // A CRD that serves no version at all (a kind its owner retired, which the API server takes) sends them nothing.
    if (
      versions.some((version) => version.served) &&
      versions.some((version) => version.name === hub && !version.served)
    )
      problems.push(`the hub ${hub} must be served: the webhooks of a CRD crdgate does not own are called in it`);
  }
  if (ownerCrd === undefined) return problems;
  if (crdOwner !== 'external')
    return [...problems, "ownerCrd is only for a contract whose CRD someone else owns: set crdOwner: 'external'"];
  const metadata = ownerCrd['metadata'];
  const name = typeof metadata === 'object' && metadata !== null ? (metadata as { name?: unknown }).name : undefined;
  const expected = `${identity.plural}.${identity.group}`;
  if (ownerCrd['kind'] !== 'CustomResourceDefinition' || name !== expected) {
    // Both as an error shows any value: the definition is untrusted, and String() of some objects throws.
    const kind =
      ownerCrd['kind'] === undefined
        ? 'an object without a kind'
        : typeof ownerCrd['kind'] === 'string'
          ? ownerCrd['kind']
          : describeOption(ownerCrd['kind']);
    problems.push(
      `ownerCrd must be the CustomResourceDefinition ${expected}, got ${kind} ${describeOption(name ?? null)}`,
    );
  }
  // The API server names every object and request with the CRD's kind: a contract of another kind never sees them.
  const crdKind = servedKindOf(ownerCrd);
  if (crdKind !== undefined && crdKind !== identity.kind)
    problems.push(
      `identity.kind is ${JSON.stringify(identity.kind)}, but ownerCrd's spec.names.kind is ${JSON.stringify(crdKind)}: ` +
        "the API server sends the CRD's kind in every object and request, so make the contract's kind equal the CRD's spec.names.kind",
    );
  return problems;
}

/** Each deletion rule's data: one form or the other, and a field protection's path against the hub's schema. */
function deletionRuleProblems(definition: ContractDefinition, hubSchema: JSONSchemaProps | undefined): string[] {
  return (definition.deletionRules ?? []).flatMap((rule, index) => {
    const form = rule.form as Partial<AnnotationProtection & FieldProtection> | undefined;
    const at = `deletionRules[${index}].form`;
    if (form === undefined) return [];
    if ((form.annotation === undefined) === (form.field === undefined))
      return [`${at} must have either annotation or field, got ${form.field === undefined ? 'neither' : 'both'}`];
    if (form.annotation !== undefined)
      return typeof form.equals === 'string'
        ? []
        : [`${at}.equals must be a string for an annotation, got ${describeOption(form.equals)}`];
    return fieldProtectionProblems(form as FieldProtection, hubSchema).map((problem) => `${at}: ${problem}`);
  });
}
