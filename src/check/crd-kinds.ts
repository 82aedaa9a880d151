import { isDeepStrictEqual } from 'node:util';
import { CrdUnservableError, loadCrd, type EngineCrd } from '../api-server-engine/engine.ts';
import { formatFieldError } from '../contract/values/field-error.ts';
import { isPlainObject, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { ownsCrd } from '../contract/contract-definition.ts';
import { describeVersionDrift, drifted, ownerCrdDrift } from '../contract/owner-crd-drift.ts';
import { renderCustomResourceDefinition } from '../render/custom-resource-definition.ts';
import { describeLocation, type ManifestLocation, type ManifestObject } from './manifest-documents.ts';

/** Where a CRD was found: among the objects of the checked tree (`-f`), or in a file named with `--crd`. */
export type CrdOrigin = 'tree' | 'crd-flag';

/** A CustomResourceDefinition `crdgate check` read, and what it does with it. Plain data: the JSON report has it. */
export interface CrdUse {
  location: ManifestLocation;
  origin: CrdOrigin;
  /** `plural.group` */
  name: string;
  group: string;
  kind: string;
  /** The versions it serves, each judged in its own schema. */
  versions: string[];
  /**
   * `crd`: its custom resources are judged by kube-apiserver's pipeline on this CRD alone. `contract`: a contract
   * declares the same kind and wins (the contract's CRD, its webhooks' rules); this CRD only had to be one the API
   * server would take.
   */
  decidedBy: 'crd' | 'contract';
  /** With `decidedBy: contract`: the versions whose schema is not the one the contract renders (or that only one has). */
  differsFromContract?: string[];
  /**
   * With `differsFromContract`: where, as `version: path (change)`, the first few per version (documentation-only
   * differences name no path). For a contract that does not own its CRD, this is the owner's release against the
   * contract's copy of it: what `crdgate serve` reports as drift against the live CRD.
   */
  differences?: string[];
  /** With `decidedBy: contract`: the contract's CRD is someone else's (crdOwner: 'external'). */
  ownedBy?: 'external';
  /**
   * With `decidedBy: contract`: the kind the contract of this CRD's resource declares, when it is not the CRD's
   * (every object of the CRD's kind is then denied, KIND_MISMATCH: the webhook would have no contract for it).
   */
  contractKind?: string;
  /**
   * With `decidedBy: contract`: the resource the contract of this CRD's kind declares, when it is not the CRD's
   * (every object of the kind is then denied, KIND_MISMATCH: the webhook, registered for it, would never be called).
   */
  contractResource?: string;
}

/** A CRD kube-apiserver would not take, or one that clashes with another: `crdgate check` stops (exit 2) on it. */
export class CrdSourceError extends Error {
  override name = 'CrdSourceError';
}

/** The custom-resource kinds the CRDs of a run declare, each compiled by the engine once. */
export class CrdKinds {
  readonly uses: CrdUse[] = [];
  private readonly byKind = new Map<
    string,
    { use: CrdUse; crd: EngineCrd; spec: unknown; conversion: string; namespaced: boolean }
  >();

  /** The CRD that decides objects of this group and kind; undefined when none does, or when a contract does. */
  lookup(group: string, kind: string): { crd: EngineCrd; use: CrdUse; conversion: string } | undefined {
    const found = this.byKind.get(`${group}\u0000${kind}`);
    return found && found.use.decidedBy === 'crd' ? found : undefined;
  }

  /** @internal */
  add(use: CrdUse, crd: EngineCrd, spec: unknown, conversion: string): void {
    const namespaced = !(isPlainObject(spec) && spec['scope'] === 'Cluster');
    this.byKind.set(`${use.group}\u0000${use.kind}`, { use, crd, spec, conversion, namespaced });
    this.uses.push(use);
  }

  /** Whether a CRD read declares the kind cluster-scoped (whether or not it decides its objects). */
  clusterScoped(group: string, kind: string): boolean {
    return this.byKind.get(`${group}\u0000${kind}`)?.namespaced === false;
  }

  /** @internal the CRD already read for this kind, to tell a repetition from a clash */
  known(group: string, kind: string): { use: CrdUse; spec: unknown } | undefined {
    return this.byKind.get(`${group}\u0000${kind}`);
  }

  /** The CRD read that serves this kind (whether or not it decides its objects), and its resource's plural. */
  servedAs(group: string, kind: string): { use: CrdUse; plural: string } | undefined {
    const found = this.byKind.get(`${group}\u0000${kind}`);
    return found && { use: found.use, plural: pluralOf(found.spec) };
  }
}

function pluralOf(spec: unknown): string {
  const names = isPlainObject(spec) && isPlainObject(spec['names']) ? spec['names'] : {};
  return typeof names['plural'] === 'string' ? names['plural'] : '';
}

/** Whether a manifest is a CustomResourceDefinition (of any apiextensions version). */
export function isCrdObject(object: KubeObject): boolean {
  return (
    object.kind === 'CustomResourceDefinition' &&
    splitApiVersion(String(object.apiVersion)).group === 'apiextensions.k8s.io'
  );
}

/**
 * Compiles every CRD found, in order, as kube-apiserver would create it: one it would refuse (a schema that is not
 * structural, a rule that does not compile or costs too much, v1beta1) throws a CrdSourceError naming where it is
 * and the API server's words. The same CRD met twice (in the tree and with --crd) counts once; two different ones
 * for the same kind are a clash. A kind a contract declares is decided by the contract: its CRD is still checked,
 * and compared with the contract's, so that a stale copy in the tree is seen.
 */
export function collectCrds(
  registry: ContractRegistry,
  found: ReadonlyArray<ManifestObject & { origin: CrdOrigin }>,
): CrdKinds {
  const kinds = new CrdKinds();
  for (const { location, object, origin } of found) {
    const where = `${origin === 'crd-flag' ? '--crd ' : ''}${describeLocation(location)}`;
    const name =
      isPlainObject(object.metadata) && typeof object.metadata.name === 'string' ? object.metadata.name : '(unnamed)';
    const fail = (problem: string): never => {
      throw new CrdSourceError(`${where}: CustomResourceDefinition ${name}: ${problem}`);
    };
    if (object.apiVersion !== 'apiextensions.k8s.io/v1') {
      fail(
        `kube-apiserver serves CustomResourceDefinitions as apiextensions.k8s.io/v1 only, not ${String(object.apiVersion)} (v1beta1 is gone since Kubernetes 1.22): convert it`,
      );
    }
    let crd: EngineCrd;
    try {
      crd = loadCrd(object);
    } catch (error) {
      if (error instanceof CrdUnservableError) return fail(`kube-apiserver cannot serve it: ${error.message}`);
      if (error instanceof RangeError) return fail(error.message);
      throw error;
    }
    if (crd.refusal.length > 0) fail(`kube-apiserver would refuse it: ${crd.refusal.map(formatFieldError).join(', ')}`);
    const spec = object.spec as Record<string, unknown>;
    const conversion =
      isPlainObject(spec.conversion) && typeof spec.conversion.strategy === 'string'
        ? spec.conversion.strategy
        : 'None';
    const earlier = kinds.known(crd.group, crd.kind);
    if (earlier) {
      if (isDeepStrictEqual(earlier.spec, object.spec)) continue;
      fail(
        `a different CustomResourceDefinition of ${crd.kind}.${crd.group} is at ${describeLocation(earlier.use.location)} already: which one would the API server hold?`,
      );
    }
    // A contract of the CRD's kind decides its objects, and so does one of its resource under another kind: the
    // names differ, and each object of the CRD is denied as the webhook would deny it (kind-mismatch.ts).
    const plural = pluralOf(object.spec);
    const contract = registry.lookup(crd.group, crd.kind);
    const ofResource = registry.contracts.find(
      ({ contract: { identity } }) => identity.group === crd.group && identity.plural === plural,
    );
    const use: CrdUse = {
      location,
      origin,
      name,
      group: crd.group,
      kind: crd.kind,
      versions: [...crd.versions],
      decidedBy: contract || ofResource ? 'contract' : 'crd',
    };
    if (!contract && ofResource) use.contractKind = ofResource.contract.identity.kind;
    if (contract && contract.contract.identity.plural !== plural)
      use.contractResource = `${contract.contract.identity.plural}.${contract.contract.identity.group}`;
    if (contract) {
      const differs = differingVersions(
        object,
        renderCustomResourceDefinition(contract.contract, { target: { url: 'https://crdgate.invalid' } }) as KubeObject,
      );
      if (differs.length > 0) {
        use.differsFromContract = differs;
        const where = ownerCrdDrift(contract.contract, object)
          .filter(drifted)
          .flatMap((drift) => describeVersionDrift(drift, 3).map((words) => `${drift.version}: ${words}`));
        if (where.length > 0) use.differences = where;
      }
      if (!ownsCrd(contract.contract)) use.ownedBy = 'external';
    }
    kinds.add(use, crd, object.spec, conversion);
  }
  return kinds;
}

/** The versions whose openAPIV3Schema differs between two CRDs, or that only one of them has. */
function differingVersions(crd: KubeObject, contractCrd: KubeObject): string[] {
  const schemas = (object: KubeObject) => {
    const versions =
      isPlainObject(object.spec) && Array.isArray(object.spec.versions) ? (object.spec.versions as unknown[]) : [];
    return new Map(
      versions
        .filter(isPlainObject)
        .map((v) => [String(v.name), isPlainObject(v.schema) ? v.schema.openAPIV3Schema : undefined]),
    );
  };
  const ours = schemas(crd);
  const theirs = schemas(contractCrd);
  return [...new Set([...ours.keys(), ...theirs.keys()])]
    .filter((version) => !isDeepStrictEqual(ours.get(version), theirs.get(version)))
    .sort();
}
