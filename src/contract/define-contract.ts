import { brandError, isBrandedError } from '../errors.ts';
import { declaredPathProblem, undeclarablePaths } from './client-field-paths.ts';
import { contractReadsProblems, type ContractReads } from './contract-reads.ts';
import { crdAnnotationProblems, crdNameProblems } from './crd-names.ts';
import { defaultsProblems } from './defaults/default-problems.ts';
import { definitionShapeProblems } from './definition-shape.ts';
import { describeOption } from './option-shape.ts';
import { checkMachine } from './fsa/check-machine.ts';
import { classifierReachProblems } from './fsa/classifier-reach.ts';
import type { Fsa } from './fsa/machine.ts';
import type { FieldError } from './field-error.ts';
import { annotation, objectRef, type ContractObject, type KubeObject } from './kube-object.ts';
import { scaleSubresourceProblems } from './scale-subresource.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { schemaShapeProblems } from './schema/schema-shape.ts';
import { checkStructural } from './schema/structural-check.ts';

export interface ContractIdentity {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
}

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface Subresources {
  status?: Record<string, never>;
  /**
   * `kubectl scale` and autoscalers write the replicas through it. On the hub, crdgate judges such a write as the
   * same change of the field at specReplicasPath (a JSON path under .spec) sent to the object; to read the object's
   * state it then reads the stored object from the API server (RBAC `get` on the resource).
   */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export interface VersionDefinition {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  /** The CRD's openAPIV3Schema for this version: structural, so it serves the API server and crdgate alike. */
  schema: JSONSchemaProps;
  printerColumns?: PrinterColumn[];
  subresources?: Subresources;
  /** Fields that `kubectl get --field-selector` can select on (Kubernetes 1.31+), rendered into the CRD. */
  selectableFields?: SelectableField[];
}

/** A field selectors may use: a JSON path (`.spec.color`) to a string, integer or boolean field. */
export interface SelectableField {
  jsonPath: string;
}

/**
 * The spec type of a contract that does not name one, and the view crdgate's own code takes of every contract:
 * `any`, so that a Contract<BucketSpec> is still a Contract (with `unknown`, a rule about BucketSpec objects would
 * not count as a rule about any object).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UntypedSpec = any;

/** What a conversion may need to know of its contract, which crdgate passes in so that it cannot drift from it. */
export interface ConversionContext {
  /** `group/hub`, the apiVersion toHub's result must have. */
  hubApiVersion: string;
  /** `group/version` of the version this conversion is for, the apiVersion fromHub's result must have. */
  spokeApiVersion: string;
  /** The contract's conversionAnnotation, where a conversion keeps what its version cannot hold. */
  annotation: string | undefined;
}

/**
 * Conversion of one spoke version to and from the hub. Both directions receive and return whole objects
 * (apiVersion included) so that what a spoke cannot hold can be kept in an annotation.
 */
export interface SpokeConversion<Spec = UntypedSpec> {
  toHub(object: KubeObject, context: ConversionContext): ContractObject<Spec>;
  fromHub(hub: ContractObject<Spec>, context: ConversionContext): KubeObject;
  /** The conversion keeps what its version cannot hold in the stash: defineContract requires a conversionAnnotation. */
  usesStash?: boolean;
  /**
   * Where the hub's fields are in this version, so that a client of this version reads denials and warnings in its
   * own field names (rules run on the hub). Optional: an undeclared field keeps its path.
   */
  hubToSpokePaths?: HubToSpokePaths;
}

/**
 * Hub field path -> the spoke's path for the same field, or null when the spoke has none (the stash holds it).
 * `[*]` stands for any list index and carries it over: `{ 'spec.caches[*].size': 'spec.caches[*].memory' }`. A path
 * maps everything below it too (`spec.readReplicas` covers `spec.readReplicas.x`); the longest match wins. A field
 * left out keeps its path when the spoke's schema has it, and is marked as the hub's when not.
 */
export type HubToSpokePaths = Readonly<Record<string, string | null>>;

// `Spec` is the hub's spec as the contract's author types it. It describes objects that passed the schema; the
// rules below also see objects that did not, so a value they compute with is checked before use (see docs/).

/** A cross-field rule on one hub object. It must tolerate schema-invalid input: it runs even when the schema failed. */
export type Invariant<Spec = UntypedSpec> = (object: ContractObject<Spec>) => FieldError[];

/** Computed defaults: returns a defaulted copy of the hub object, filling absent fields only. Must not mutate its input. */
export type Defaulter<Spec = UntypedSpec> = (object: ContractObject<Spec>) => ContractObject<Spec>;

/**
 * A contract's defaults: one Defaulter, or a list applied in order. The library's (staticDefault, derivedDefault)
 * are data too, and the policy floor's MutatingAdmissionPolicy sets them even while crdgate is down; a function of
 * one's own is applied by the webhook alone.
 */
export type Defaults<Spec = UntypedSpec> = Defaulter<Spec> | readonly Defaulter<Spec>[];

/**
 * A reason to refuse a DELETE, decided on the object as it is stored (converted to the hub). A rule marked
 * `readsMetadataOnly` (see metadataDeletionRule) is decided even when the stored object cannot be converted, on its
 * apiVersion, kind and metadata alone, so such an object can still be deleted; any other rule then denies.
 */
export interface DeletionRule<Spec = UntypedSpec> {
  (object: ContractObject<Spec>): string | undefined;
  readonly readsMetadataOnly?: boolean;
  /** The rule as data, when it is a protection annotation: the policy compiler turns it into CEL. */
  readonly form?: DeletionProtection;
}

/** An object is protected from deletion while it carries `annotation` with exactly `equals` as its value. */
export interface DeletionProtection {
  annotation: string;
  equals: string;
}

/**
 * A deletion rule that reads only metadata (annotations, labels, names): decidable without conversion. Given a
 * `DeletionProtection` rather than a function, it is data too, and the ValidatingAdmissionPolicy crdgate renders
 * enforces it even while crdgate is down; a function is enforced by the webhook alone.
 */
export function metadataDeletionRule(
  rule: DeletionProtection | ((object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>) => string | undefined),
): DeletionRule {
  if (typeof rule === 'function') {
    // Keeps the rule's name, by which `crdgate fsa --coverage` lists it.
    return Object.defineProperty(Object.assign((object: KubeObject) => rule(object), { readsMetadataOnly: true }), 'name', { value: rule.name });
  }
  const protection = { annotation: rule.annotation, equals: rule.equals };
  return Object.assign((object: KubeObject) => (annotation(object, protection.annotation) === protection.equals ? deletionProtectedMessage(object, protection) : undefined), {
    readsMetadataOnly: true,
    form: protection,
  });
}

/**
 * What a protected object's DELETE is told: what protects it and the command that lifts the protection. The
 * policy's CEL builds the same text.
 */
export function deletionProtectedMessage(object: Pick<KubeObject, 'kind' | 'metadata'>, protection: DeletionProtection): string {
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace ? ` -n ${object.metadata.namespace}` : '';
  return (
    `${object.kind ?? 'the object'} ${objectRef(object)} is deletion-protected; to delete it, first remove the protection: ` +
    `kubectl annotate ${(object.kind ?? '').toLowerCase()} ${name}${namespace} ${protection.annotation}-`
  );
}

export interface UpdateInput<Spec = UntypedSpec> {
  oldObject: ContractObject<Spec>;
  object: ContractObject<Spec>;
}

/**
 * What a rule about a change (old -> new) finds: refusals (403), warnings, and audit annotations. The webhook folds
 * them, with the schema's and the invariants' findings, into its one answer to the request.
 */
export interface UpdateFindings {
  forbidden: FieldError[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** A rule about a spec change; the FSA is one, risky-change warnings are another. */
export type UpdateRule<Spec = UntypedSpec> = (input: UpdateInput<Spec>) => UpdateFindings;

export interface ContractDefinition<Spec = UntypedSpec> {
  identity: ContractIdentity;
  versions: VersionDefinition[];
  /** The version validation, defaulting and rules are written against. */
  hub: string;
  /** One entry per version other than the hub. */
  conversions: Record<string, SpokeConversion<Spec>>;
  /** The annotation that keeps, on older versions, what they cannot hold. */
  conversionAnnotation?: string;
  defaults?: Defaults<Spec>;
  invariants?: Invariant<Spec>[];
  deletionRules?: DeletionRule<Spec>[];
  /** The machine of allowed spec changes per lifecycle state; crdgate derives its update rule from it. */
  transitions?: Fsa<string, string>;
  /** Rules about a change beyond the FSA (e.g. warnings for risky changes). */
  updateRules?: UpdateRule<Spec>[];
  /**
   * What the invariants, defaults and update rules read (or write) besides the spec: labels and annotations by key,
   * and whether they read the status. crdgate shows them only this (never finalizers, ownerReferences or
   * managedFields), and the API server calls crdgate for an update only when the spec or one of these changes.
   * Left out: every label and annotation, and the status.
   */
  reads?: ContractReads;
  /**
   * Annotations of the CRD itself, rendered into its metadata: `api-approved.kubernetes.io` (which lets a CRD into
   * a `*.k8s.io` or `*.kubernetes.io` group), or those a CRD brought along (see `fromCrd`).
   */
  crdAnnotations?: Record<string, string>;
  /**
   * Who installs the CRD. `'crdgate'` (the default): `crdgate manifests` renders it, with crdgate's conversion webhook
   * for several versions, and the storage migration. `'external'`: an operator's Helm chart or OLM owns it, with its
   * own conversions; crdgate renders only its webhooks (registered for the hub with `matchPolicy: Equivalent`, so the
   * API server converts through the owner's webhook), its workload, RBAC and policy floor, and versions other than
   * the hub need no conversion of crdgate's.
   */
  crdOwner?: CrdOwner;
  /**
   * With `crdOwner: 'external'`: the owner's CRD as its owner installs it (what `readCrdFile` returns; `fromCrd(crd,
   * { crdOwner: 'external' })` sets it). Never rendered for a cluster: `crdgate dev` and `startTestEnvironment` apply
   * it in the owner's place, so the local loop sees the API the operator serves.
   */
  ownerCrd?: Record<string, unknown>;
}

/** `'crdgate'`: crdgate renders and installs the CRD. `'external'`: someone else (the operator's chart, OLM) does. */
export type CrdOwner = 'crdgate' | 'external';

/** Whether crdgate renders and installs the contract's CRD (its conversions and storage migration with it). */
export function ownsCrd(contract: Pick<ContractDefinition, 'crdOwner'>): boolean {
  return contract.crdOwner !== 'external';
}

export interface Contract<Spec = UntypedSpec> extends ContractDefinition<Spec> {
  storageVersion: string;
}

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
  return { ...definition, storageVersion: storage!.name };
}

/**
 * A contract crdgate is handed rather than makes: a plain object given to contractTester, a module's default
 * export, a contract changed after defineContract made it. It is held to defineContract's rules, and its
 * storageVersion to its versions; it is returned as it is, or a ContractDefinitionError says what is wrong.
 */
export function checkContract(value: unknown): Contract {
  const problems = contractProblems(value, true);
  if (problems.length === 0) {
    const contract = value as Contract;
    const storage = contract.versions.find((v) => v.storage)!.name;
    if (contract.storageVersion !== storage) problems.push(`storageVersion must be the storage version's name, ${storage}, got ${JSON.stringify(contract.storageVersion)}`);
  }
  if (problems.length > 0) throw invalidContract(value, problems);
  return value as Contract;
}

function invalidContract(value: unknown, problems: readonly string[]): ContractDefinitionError {
  const identity = (value as { identity?: { plural?: unknown; group?: unknown } } | null | undefined)?.identity;
  const name = typeof identity?.plural === 'string' && typeof identity.group === 'string' ? `contract ${identity.plural}.${identity.group}` : 'the contract';
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
  if (storageVersions.length !== 1) problems.push(`exactly one version must be the storage version, found ${storageVersions.length}`);
  if (storageVersions[0] && !storageVersions[0].served) problems.push(`storage version ${storageVersions[0].name} must be served`);
  if (!names.includes(hub)) problems.push(`hub "${hub}" is not one of the versions (${names.join(', ')})`);
  problems.push(...crdOwnerProblems(definition));
  // A CRD someone else owns is converted by its owner's webhook: crdgate's webhooks see the hub only.
  for (const name of ownsCrd(definition) ? names : []) {
    if (name !== hub && conversions[name] === undefined) problems.push(`version ${name} has no conversion to the hub ${hub}`);
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
    const schemaProblems = keywordTypes.length > 0 ? keywordTypes : checkStructural(version.schema, { statusSubresource });
    if (schemaProblems.length > 0) unstructural.add(version.name);
    for (const problem of schemaProblems) problems.push(`version ${version.name}: ${problem}`);
  }
  for (const [name, conversion] of Object.entries(conversions)) {
    if (name === hub) problems.push(`the hub ${hub} must not have a conversion of its own`);
    else if (!names.includes(name)) problems.push(`conversion for unknown version ${name}`);
    if (conversion.usesStash && definition.conversionAnnotation === undefined) {
      problems.push(`the ${name} conversion keeps what ${name} cannot hold in the stash: set conversionAnnotation (e.g. "${identity.group}/conversion-data")`);
    }
    problems.push(...hubToSpokePathProblems(definition, name, unstructural));
  }
  if (definition.transitions) {
    problems.push(...checkMachine(definition.transitions).map((problem) => `transitions: ${problem}`));
    // Against the hub's schema: what the machine's classifiers compare is the hub's spec.
    const hubSchema = versions.find((version) => version.name === hub)?.schema;
    if (hubSchema !== undefined) problems.push(...classifierReachProblems(definition.transitions.classifiers, hubSchema).map((problem) => `transitions: ${problem}`));
  }
  problems.push(...scaleSubresourceProblems(definition));
  problems.push(...defaultsProblems(definition));
  if (definition.reads !== undefined) problems.push(...contractReadsProblems(definition.reads));
  return problems;
}

/**
 * A conversion's declared paths: each written as a path, and (when both schemas are structural, so they can be
 * walked) a field of the hub's schema mapped to one of the spoke's. A typo is caught here, not on a request.
 */
function hubToSpokePathProblems(definition: ContractDefinition, version: string, unstructural: ReadonlySet<string>): string[] {
  const declared = definition.conversions[version]?.hubToSpokePaths ?? {};
  const problems: string[] = [];
  for (const [from, to] of Object.entries(declared)) {
    const problem = declaredPathProblem(from, to);
    if (problem) problems.push(`the ${version} conversion's hubToSpokePaths: ${problem}`);
  }
  const schemaOf = (name: string) => definition.versions.find((candidate) => candidate.name === name)?.schema;
  const hubSchema = schemaOf(definition.hub);
  const spokeSchema = schemaOf(version);
  if (problems.length > 0 || hubSchema === undefined || spokeSchema === undefined || unstructural.has(definition.hub) || unstructural.has(version)) return problems;
  const lacking = undeclarablePaths({ hubVersion: definition.hub, spokeVersion: version, hubSchema, spokeSchema, declared });
  return lacking.length > 0 ? [`the ${version} conversion's hubToSpokePaths declare paths its schemas lack: ${lacking.join('; ')}`] : [];
}

function crdOwnerProblems(definition: ContractDefinition): string[] {
  const { crdOwner, ownerCrd, identity, hub, versions } = definition;
  const problems: string[] = [];
  if (crdOwner === 'external') {
    // The API server converts a request to the version the webhooks register for only when that version is served.
    if (versions.some((version) => version.name === hub && !version.served)) problems.push(`the hub ${hub} must be served: the webhooks of a CRD crdgate does not own are called in it`);
  }
  if (ownerCrd === undefined) return problems;
  if (crdOwner !== 'external') return [...problems, "ownerCrd is only for a contract whose CRD someone else owns: set crdOwner: 'external'"];
  const metadata = ownerCrd['metadata'];
  const name = typeof metadata === 'object' && metadata !== null ? (metadata as { name?: unknown }).name : undefined;
  const expected = `${identity.plural}.${identity.group}`;
  if (ownerCrd['kind'] !== 'CustomResourceDefinition' || name !== expected) {
    // Both as an error shows any value: the definition is untrusted, and String() of some objects throws.
    const kind = ownerCrd['kind'] === undefined ? 'an object without a kind' : typeof ownerCrd['kind'] === 'string' ? ownerCrd['kind'] : describeOption(ownerCrd['kind']);
    problems.push(`ownerCrd must be the CustomResourceDefinition ${expected}, got ${kind} ${describeOption(name ?? null)}`);
  }
  return problems;
}

export function apiVersionOf(contract: ContractDefinition, version: string): string {
  return `${contract.identity.group}/${version}`;
}
