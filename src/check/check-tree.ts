import { checkCrdObject, checkObject, type CheckInput, type CheckOperation, type CheckResult } from './check-object.ts';
import type { FieldValidation } from '../api-server-engine/engine.ts';
import { errored } from '../admission/verdict.ts';
import { EngineUnavailableError } from '../api-server-engine/engine.ts';
import type { DecisionCode, TreeCheckCode } from '../errors.ts';
import { splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { ConversionError } from '../conversion/conversion-error.ts';
import { isCrdObject, type CrdKinds, type CrdUse } from './crd-kinds.ts';
import { kindProblem, type KindProblem } from './kind-mismatch.ts';
import { compareTreeCrds, type CrdRevisionCheck } from './crd-revisions.ts';
import type { StoredObjectsReport } from './stored-objects.ts';
import type { RuleSettings } from '../crd-revision/rule-config.ts';
import type {
  EmptyManifest,
  InvalidManifest,
  ManifestContents,
  ManifestLocation,
  ManifestObject,
} from './manifest-documents.ts';
import { previousRevision, type StartState } from './previous-revision.ts';

export interface TreeCheckOptions {
  /** The phase an old object without one is assumed to be in (`--state`); else the machine's steadyState. */
  state?: string;
  /** Decide every object of the tree as being deleted (`--delete`); there is no previous revision then. */
  deleteAll?: boolean;
  /** What unknown and duplicate fields make of an object (`--field-validation`); kubectl's Strict if unset. */
  fieldValidation?: FieldValidation;
  /**
   * The namespace of a namespaced object whose manifest names none (`--namespace`), as `kubectl apply -n` would
   * put it there: `default` if unset. Two manifests of one object, one naming the namespace and one not, are the
   * same object.
   */
  namespace?: string;
  /**
   * The CRDs of the run (found in the tree, or named with `--crd`): their custom resources are decided by
   * kube-apiserver's pipeline on the CRD where no contract declares the kind. The tree's CRD objects themselves are
   * then counted as read, not skipped.
   */
  crds?: CrdKinds;
  /**
   * What the CRD revision rules are set to (`--crd-rules`): with a previous revision, every CRD both trees hold is
   * compared with its old revision.
   */
  crdRules?: RuleSettings;
}

/** The verdict on one object of the tree. */
export interface ObjectCheck extends Omit<CheckResult, 'code'> {
  code: DecisionCode | TreeCheckCode;
  /** Where the object is: in the new tree, or for a DELETE in the previous revision. */
  location: ManifestLocation;
  /** For an UPDATE, where the previous revision has the object. */
  oldLocation?: ManifestLocation;
  operation: CheckOperation;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** For an UPDATE of a kind with an FSA: the state the change is judged in. */
  state?: StartState;
  /**
   * Set when the same object (group, kind, namespace, name) is in the tree before: where it first is. The object
   * is judged all the same (against its own previous revision), and the duplicate fails the check.
   */
  duplicateOf?: ManifestLocation;
}

/** Which tree a file belongs to: the one given with -f, or the previous revision given with --old. */
export type TreeName = 'new' | 'old';

export interface TreeCheckReport {
  /** The new tree's decided objects in their order, then the deletions in the previous revision's order. */
  objects: ObjectCheck[];
  /** Objects of kinds no contract or CRD declares (not decided), counted by kind as `Kind.group` (`ConfigMap` for core). */
  skipped: Record<string, number>;
  /** The CRDs read (from the tree and --crd), and which decides each kind: the CRD, or a contract of the same kind. */
  crds: CrdUse[];
  /** Documents that are no Kubernetes object (no apiVersion or kind), in either tree. */
  notObjects: ManifestLocation[];
  /**
   * Documents that could not be parsed, in either tree: each fails the check, since what it holds was not decided.
   * One in the previous revision leaves its objects unpaired: a new one is then judged as a CREATE.
   */
  invalid: Array<InvalidManifest & { tree: TreeName }>;
  /** Files, documents and Lists with nothing in them, in either tree: passed over, and counted. */
  empty: Array<EmptyManifest & { tree: TreeName }>;
  /** The new tree in its order: each decided object as it would be stored (defaults applied), the others as they are. */
  stored: KubeObject[];
  /** Each CRD both trees hold, and what changed from its previous revision (empty without one). */
  crdRevisions: CrdRevisionCheck[];
  /**
   * The stored objects judged through their CRD's new revision (the old tree's, of a CRD that changed, and
   * --stored's); absent when there were none to judge.
   */
  storedObjects?: StoredObjectsReport;
}

/**
 * Decides a manifest tree as the API server would admit it: an object the previous revision has too (same group,
 * kind, namespace and name) is an UPDATE from it, a new one a CREATE, one the new tree lacks a DELETE. Pure: the
 * trees are read by the caller, and the registry is compiled once for the whole run.
 */
export function checkTree(
  registry: ContractRegistry,
  tree: ManifestContents,
  oldTree: ManifestContents | undefined,
  options: TreeCheckOptions = {},
): TreeCheckReport {
  const crds = options.crds;
  const namespace = options.namespace ?? 'default';
  const asked: Pick<CheckInput, 'fieldValidation' | 'namespace'> = {
    ...(options.fieldValidation ? { fieldValidation: options.fieldValidation } : {}),
    namespace,
  };
  // An object whose kind is wrong for the contracts (kind-mismatch.ts) is judged too, as denied: never skipped.
  const kindProblems = new Map<KubeObject, KindProblem | undefined>();
  const problemOf = (object: KubeObject) => {
    if (!kindProblems.has(object)) kindProblems.set(object, kindProblem(registry, crds, object));
    return kindProblems.get(object);
  };
  const decides = (object: KubeObject) =>
    registry.lookup(splitApiVersion(String(object.apiVersion)).group, String(object.kind)) !== undefined ||
    crdFor(crds, object) !== undefined ||
    problemOf(object) !== undefined;
  const identityKey = (object: KubeObject) =>
    objectIdentity(object, clusterScoped(registry, crds, object) ? '' : namespace);
  const previous = new PreviousRevisions(oldTree, decides, identityKey);
  const inTree = <T>(entries: T[], name: TreeName) => entries.map((entry) => ({ ...entry, tree: name }));
  const report: TreeCheckReport = {
    objects: [],
    skipped: {},
    crds: crds?.uses ?? [],
    notObjects: [...tree.notObjects, ...(oldTree?.notObjects ?? [])],
    invalid: [...inTree(tree.invalid, 'new'), ...inTree(oldTree?.invalid ?? [], 'old')],
    empty: [...inTree(tree.empty, 'new'), ...inTree(oldTree?.empty ?? [], 'old')],
    stored: [],
    crdRevisions: oldTree ? compareTreeCrds(tree, oldTree, options.crdRules ?? {}) : [],
  };
  const seen = new Map<string, ManifestLocation[]>();
  for (const { location, object } of tree.objects) {
    if (!decides(object)) {
      report.stored.push(object);
      // A CRD of the tree was read (and judged as the API server would create it) before the tree was decided.
      if (crds && isCrdObject(object)) continue;
      const kind = kindName(object);
      report.skipped[kind] = (report.skipped[kind] ?? 0) + 1;
      continue;
    }
    const key = identityKey(object);
    const earlier = key === undefined ? [] : (seen.get(key) ?? []);
    if (key !== undefined) seen.set(key, [...earlier, location]);
    const old = key === undefined ? undefined : previous.revisionOf(key, earlier.length);
    const problem = problemOf(object);
    const operation = options.deleteAll ? 'DELETE' : old === undefined ? 'CREATE' : 'UPDATE';
    const check = problem
      ? {
          ...refused(object, location, operation, problem.code, problem.message),
          ...(old && operation === 'UPDATE' ? { oldLocation: old.location } : {}),
        }
      : operation === 'DELETE'
        ? decide(registry, crds, object, location, { operation: 'DELETE', object })
        : old === undefined
          ? decide(registry, crds, object, location, { operation: 'CREATE', object, ...asked })
          : update(registry, crds, object, location, old, options.state, asked);
    report.objects.push(earlier[0] === undefined ? check : { ...check, duplicateOf: earlier[0] });
    report.stored.push(check.object);
  }
  for (const { location, object } of previous.gone(seen)) {
    const problem = problemOf(object);
    report.objects.push(
      problem
        ? refused(object, location, 'DELETE', problem.code, problem.message)
        : decide(registry, crds, object, location, { operation: 'DELETE', object }),
    );
  }
  return report;
}

/**
 * The previous revision's objects by identity. A tree may hold one object twice (upstream examples are
 * alternatives that reuse names): the n-th manifest of an object in the new tree is judged against the n-th of the
 * old, else against the old's last, which is the one the cluster holds (the API server applies both, the later
 * winning).
 */
class PreviousRevisions {
  private readonly byKey = new Map<string, ManifestObject[]>();

  constructor(
    oldTree: ManifestContents | undefined,
    decides: (object: KubeObject) => boolean,
    identityKey: (object: KubeObject) => string | undefined,
  ) {
    for (const entry of oldTree?.objects ?? []) {
      const key = identityKey(entry.object);
      if (key !== undefined && decides(entry.object)) this.byKey.set(key, [...(this.byKey.get(key) ?? []), entry]);
    }
  }

  revisionOf(key: string, occurrence: number): ManifestObject | undefined {
    const revisions = this.byKey.get(key);
    return revisions?.[occurrence] ?? revisions?.at(-1);
  }

  /** The objects the new tree no longer has, each once (its last manifest: what the cluster holds). */
  gone(seen: ReadonlyMap<string, unknown>): ManifestObject[] {
    return [...this.byKey].filter(([key]) => !seen.has(key)).map(([, revisions]) => revisions.at(-1)!);
  }
}

function update(
  registry: ContractRegistry,
  crds: CrdKinds | undefined,
  object: KubeObject,
  location: ManifestLocation,
  old: ManifestObject,
  state: string | undefined,
  asked: Pick<CheckInput, 'fieldValidation' | 'namespace'>,
): ObjectCheck {
  const compiled = registry.lookup(splitApiVersion(String(object.apiVersion)).group, String(object.kind));
  if (!compiled) {
    const crd = crdFor(crds, object);
    if (crd && old.object.apiVersion !== object.apiVersion && crd.conversion !== 'None') {
      const message =
        `the previous revision is ${String(old.object.apiVersion)} and the CustomResourceDefinition ${crd.use.name} converts between versions ` +
        `with a webhook (conversion strategy ${crd.conversion}), which crdgate check does not call: write both revisions in one version to judge the change`;
      return { ...refused(object, location, 'UPDATE', 'OLD_OBJECT_UNCONVERTIBLE', message), oldLocation: old.location };
    }
    // The None strategy converts by setting the apiVersion, as the API server reads the stored object back.
    const oldObject =
      crd && old.object.apiVersion !== object.apiVersion
        ? { ...old.object, apiVersion: object.apiVersion }
        : old.object;
    return {
      ...decide(registry, crds, object, location, { operation: 'UPDATE', object, oldObject, ...asked }),
      oldLocation: old.location,
    };
  }
  let prepared;
  try {
    prepared = previousRevision(compiled, old.object, String(object.apiVersion), state);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    return {
      ...refused(object, location, 'UPDATE', 'OLD_OBJECT_UNCONVERTIBLE', error.message),
      oldLocation: old.location,
    };
  }
  const assumed = prepared.assumedState === undefined ? {} : { assumedState: prepared.assumedState };
  const check = decide(registry, crds, object, location, {
    operation: 'UPDATE',
    object,
    oldObject: prepared.oldObject,
    ...assumed,
    ...asked,
  });
  return { ...check, oldLocation: old.location, ...(prepared.state ? { state: prepared.state } : {}) };
}

/** As the server's handler does, a rule that throws denies the one object (INTERNAL_ERROR); the run goes on. */
function decide(
  registry: ContractRegistry,
  crds: CrdKinds | undefined,
  object: KubeObject,
  location: ManifestLocation,
  input: CheckInput,
): ObjectCheck {
  try {
    const crd = crdFor(crds, object);
    return {
      ...describe(object, location, input.operation),
      ...(crd ? checkCrdObject(crd.crd, input) : checkObject(registry, input)),
    };
  } catch (error) {
    // Without the engine nothing can be decided: the whole run stops with one line saying how to get it.
    if (error instanceof EngineUnavailableError) throw error;
    return refused(
      object,
      location,
      input.operation,
      'INTERNAL_ERROR',
      errored(error instanceof Error ? error.message : String(error)).message!,
    );
  }
}

function refused(
  object: KubeObject,
  location: ManifestLocation,
  operation: CheckOperation,
  code: ObjectCheck['code'],
  message: string,
): ObjectCheck {
  return {
    ...describe(object, location, operation),
    allowed: false,
    code,
    message,
    causes: [],
    warnings: [],
    auditAnnotations: {},
    defaults: [],
    object,
  };
}

function describe(object: KubeObject, location: ManifestLocation, operation: CheckOperation) {
  const meta = object.metadata;
  const name =
    typeof meta?.name === 'string'
      ? meta.name
      : typeof meta?.generateName === 'string'
        ? `${meta.generateName}*`
        : '<unnamed>';
  return {
    location,
    operation,
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    ...(typeof meta?.namespace === 'string' && meta.namespace !== '' ? { namespace: meta.namespace } : {}),
    name,
  };
}

/** The CRD deciding an object: one read for its kind that no contract declares (a contract wins where both do). */
function crdFor(crds: CrdKinds | undefined, object: KubeObject) {
  return crds?.lookup(splitApiVersion(String(object.apiVersion)).group, String(object.kind));
}

/** Whether the kind is cluster-scoped, as its contract or a CRD read says; a kind neither knows counts as namespaced. */
function clusterScoped(registry: ContractRegistry, crds: CrdKinds | undefined, object: KubeObject): boolean {
  const { group } = splitApiVersion(String(object.apiVersion));
  const compiled = registry.lookup(group, String(object.kind));
  if (compiled) return compiled.contract.identity.scope === 'Cluster';
  return crds?.clusterScoped(group, String(object.kind)) ?? false;
}

/**
 * Group, kind, namespace and name: what makes two manifests the same object, a manifest that names no namespace
 * being in `defaultNamespace` ('' for a cluster-scoped kind). Undefined for an object without a name.
 */
function objectIdentity(object: KubeObject, defaultNamespace: string): string | undefined {
  const name = object.metadata?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  const written = object.metadata?.namespace;
  const namespace =
    defaultNamespace === '' ? '' : typeof written === 'string' && written !== '' ? written : defaultNamespace;
  return `${splitApiVersion(String(object.apiVersion)).group}\u0000${String(object.kind)}\u0000${namespace}\u0000${name}`;
}

function kindName(object: KubeObject): string {
  const { group } = splitApiVersion(String(object.apiVersion));
  return group === '' ? String(object.kind) : `${String(object.kind)}.${group}`;
}
