import { ownsCrd } from '../contract/contract-definition.ts';
import type { CompiledContract, ContractRegistry } from '../contract/registry.ts';
import { splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import { describeLocation } from './manifest-documents.ts';
import type { CrdKinds } from './crd-kinds.ts';

// No object passed over in silence: an object whose group a contract serves, but whose kind or resource no contract
// declares as the CRD does, is an error naming both, never skipped. In the cluster the API server sends every write
// of a resource to the webhooks registered for it, with the kind its CRD declares (spec.names.kind): a contract that
// says the resource's kind otherwise has the webhook deny them all, and one whose resource is not the CRD's is never
// called. Only the operator's other kinds of a group that a contract guards without owning its CRD
// (CloudNativePG's Backup beside its Cluster) are skipped, when no CRD read serves them.

export interface KindProblem {
  /**
   * KIND_MISMATCH: the object is of a resource a contract serves, named otherwise than the contract names it.
   * KIND_UNKNOWN: a kind of a group whose CRDs crdgate owns, which nothing declares (a misspelt kind).
   */
  code: 'KIND_MISMATCH' | 'KIND_UNKNOWN';
  message: string;
}

/** What is wrong with an object's kind for the contracts and the CRDs read, or undefined when nothing is. */
export function kindProblem(
  registry: ContractRegistry,
  crds: CrdKinds | undefined,
  object: KubeObject,
): KindProblem | undefined {
  const { group } = splitApiVersion(String(object.apiVersion));
  const kind = String(object.kind);
  const ofGroup = registry.contracts.filter((c) => c.contract.identity.group === group);
  if (ofGroup.length === 0) return undefined;
  const fix = "make the contract's kind equal the CRD's spec.names.kind";
  const served = crds?.servedAs(group, kind);
  if (served) {
    const crd = `the CustomResourceDefinition ${served.use.name} (${describeLocation(served.use.location)})`;
    const declared = registry.lookup(group, kind);
    if (declared) {
      const { identity } = declared.contract;
      if (identity.plural === served.plural) return undefined;
      return mismatch(
        `${crd} serves kind ${kind} as resource ${served.plural}.${group}, and the contract of ${kind} declares resource ` +
          `${identity.plural}.${group}: crdgate's webhooks, registered for ${identity.plural}.${group}, would never be called for it; ` +
          "make the contract's plural equal the CRD's spec.names.plural",
      );
    }
    const ofResource = ofGroup.find((c) => c.contract.identity.plural === served.plural);
    if (!ofResource) return undefined;
    return mismatch(
      `${crd} serves resource ${served.plural}.${group} with kind ${kind}, and the contract for ${served.plural}.${group} ` +
        `declares kind ${ofResource.contract.identity.kind}: ${sends(kind)}; ${fix}`,
    );
  }
  if (registry.lookup(group, kind)) return undefined;
  const named = ofGroup.find((c) => namesResource(c, kind));
  if (named) {
    const { identity } = named.contract;
    return mismatch(
      `kind ${kind} names the resource ${identity.plural}.${group}, whose contract declares kind ${identity.kind}: ` +
        `the API server serves a resource under its CRD's kind alone (spec.names.kind), and crdgate's webhook denies ` +
        `any other: if the CRD says ${kind}, ${fix}; else fix the object's kind`,
    );
  }
  const owning = ofGroup.filter((c) => ownsCrd(c.contract));
  if (owning.length === 0) return undefined;
  const kinds = owning.map((c) => `${c.contract.identity.kind} (${c.contract.identity.plural}.${group})`).join(', ');
  return {
    code: 'KIND_UNKNOWN',
    message:
      `no contract or CustomResourceDefinition read declares kind ${kind} in group ${group}, whose CRDs crdgate owns ` +
      `(its contracts declare ${kinds}): a misspelt kind? If a CRD of your own serves it, give it with --crd`,
  };
}

function mismatch(message: string): KindProblem {
  return { code: 'KIND_MISMATCH', message };
}

function sends(kind: string): string {
  return `the API server sends kind ${kind}, which no contract declares, so crdgate's webhook would deny every write of it`;
}

/**
 * Whether a kind evidently names a contract's resource: its kind, singular, plural or a short name, whatever the
 * case (`postgresql` for a contract that says `Postgresql`).
 */
function namesResource(compiled: CompiledContract, kind: string): boolean {
  const { identity } = compiled.contract;
  const lower = kind.toLowerCase();
  return [identity.kind.toLowerCase(), identity.singular, identity.plural, ...(identity.shortNames ?? [])].includes(
    lower,
  );
}
