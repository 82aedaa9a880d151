import type { ContractReads } from './contract-reads.ts';
import type { Fsa } from './fsa/machine.ts';
import type { DeletionRule } from './deletion-rules.ts';
import type { ContractObject, KubeObject } from './values/kube-object.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import type {
  Defaulter,
  Defaults,
  Invariant,
  UntypedSpec,
  UpdateFindings,
  UpdateInput,
  UpdateRule,
} from './values/object-rules.ts';

export type { Defaulter, Defaults, Invariant, UntypedSpec, UpdateFindings, UpdateInput, UpdateRule };

// What a contract is: its types and the plain reads of them. defineContract (define-contract.ts) checks a definition
// against rules no type can express; the parts it checks with (client-field-paths.ts, scale-subresource.ts, schema/,
// fsa/, defaults/) read these types and not the check.

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

export interface ContractDefinition<Spec = UntypedSpec> {
  identity: ContractIdentity;
  versions: VersionDefinition[];
  /** The version validation, defaulting and rules are written against. */
  hub: string;
  /** One entry per version other than the hub. */
  conversions: Record<string, SpokeConversion<Spec>>;
  /** The annotation that keeps, on older versions, what they cannot hold. */
  conversionAnnotation?: string;
  /**
   * An update written in a version that cannot show a field the stored object holds (a field only a newer version
   * has, a value its fields cannot hold), sent without the conversion annotation as that version reads it (a
   * `kubectl replace` of an old manifest) or with a stale one, would change that field unseen. `'refuse'` (the
   * default) denies such a write, naming the field, the versions that show it and how to write it; `'warn'` lets it
   * through with that as a warning.
   */
  hiddenFieldChanges?: 'refuse' | 'warn';
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

export function apiVersionOf(contract: ContractDefinition, version: string): string {
  return `${contract.identity.group}/${version}`;
}
