import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { compareCrdRevisions } from '../crd-revision/compare/compare-crd-revisions.ts';
import type { RuleSettings } from '../crd-revision/rule-config.ts';
import { renderCustomResourceDefinition, renderOwnerCrd, resourceName } from '../render/custom-resource-definition.ts';
import type { Manifest } from '../render/manifest.ts';
import type { WebhookEndpoint } from '../render/webhook-endpoint.ts';
import type { CrdRevisionCheck } from './crd-revisions.ts';

/** The contracts of a `--contract` (or `--old-contract`) list, each with the module argument that declares it. */
export interface ContractModules {
  registry: ContractRegistry;
  /** The arguments as given, in the registry's order: module i declares contract i. */
  modules: readonly string[];
}

// Where both revisions' CRDs send conversion requests: one endpoint for both, since what is compared is the
// contracts, not where crdgate runs (crdgate manifests fills in the real one).
const sameEndpoint: WebhookEndpoint = {
  target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } },
};

/**
 * Every contract of the new revision whose CRD the old revision's contracts render too (the same plural.group),
 * the CRD rendered as `crdgate manifests` renders it compared with the old one, in the new contracts' order. A
 * contract whose CRD its owner installs (crdOwner: 'external') is compared by the owner's CRD it carries, if any.
 * `storedVersions` holds, by CRD name, status.storedVersions of the CRD as the cluster has it (`--from-cluster`),
 * which no module can know: the old revision is taken to have stored objects in those versions, so that a
 * version migrated away from is no longer taken for one that may still hold objects, and one not yet is.
 */
export function compareContractCrds(
  now: ContractModules,
  old: ContractModules,
  settings: RuleSettings,
  storedVersions: ReadonlyMap<string, readonly string[]> = new Map(),
): CrdRevisionCheck[] {
  const before = new Map(rendered(old).map((entry) => [entry.name, entry]));
  return rendered(now).flatMap(({ name, module, crd }) => {
    const previous = before.get(name);
    if (previous === undefined) return [];
    const stored = storedVersions.get(name);
    const previousCrd =
      stored === undefined ? previous.crd : { ...previous.crd, status: { storedVersions: [...stored] } };
    const at = (file: string) => ({ file, document: 1, line: 1 });
    return [
      {
        name,
        location: at(module),
        oldLocation: at(previous.module),
        from: 'contract' as const,
        findings: compareCrdRevisions(previousCrd, crd, settings),
      },
    ];
  });
}

/** The CRDs compareContractCrds compares: those both revisions' contracts render, by name. */
export function comparedContractCrds(now: ContractModules, old: ContractModules): string[] {
  const before = new Set(rendered(old).map((entry) => entry.name));
  return rendered(now)
    .map((entry) => entry.name)
    .filter((name) => before.has(name));
}

function rendered({ registry, modules }: ContractModules): Array<{ name: string; module: string; crd: Manifest }> {
  return registry.contracts.flatMap(({ contract }, i) => {
    const crd = crdOf(contract);
    return crd === undefined
      ? []
      : [{ name: resourceName(contract.identity), module: modules[i] ?? 'the built-in contract', crd }];
  });
}

function crdOf(contract: Contract): Manifest | undefined {
  return ownsCrd(contract) ? renderCustomResourceDefinition(contract, sameEndpoint) : renderOwnerCrd(contract);
}
