import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import {
  describeVersionDrift,
  drifted,
  liveVersions,
  ownerCrdDrift,
  servedKindOf,
} from '../contract/owner-crd-drift.ts';
import { withEnforcedSchemas, withValidators, type ContractRegistry } from '../contract/registry.ts';
import { createSchemaCompiler, type ObjectValidator } from '../contract/schema/compile-schema.ts';
import { checkStructural } from '../contract/schema/structural-check.ts';
import { logFieldsOf, type KubeWatchApi } from '../kube/kube-api.ts';
import { watchNamedObject, type FollowState } from '../kube/watch-named-object.ts';
import type { Logger } from '../log.ts';
import type { OwnerCrdMetrics } from './metrics.ts';

// crdgate guarding a kind whose CRD an operator installs holds a copy of the operator's schema (the contract's
// ownerCrd). The operator's next release changes its CRD without asking crdgate: this follows the live CRD, says
// when it and the copy part ways, and with --owner-schema live validates with the live schema instead.

/**
 * `contract`: validate with the contract's copy and report drift (the default: what was reviewed is what runs).
 * `live`: validate with the owner's CRD as the API server holds it, swapped in as it changes, so an operator's upgrade
 * never makes crdgate deny the fields it adds.
 */
export const ownerSchemaModes = ['contract', 'live'] as const;
export type OwnerSchemaMode = (typeof ownerSchemaModes)[number];

export const crdCollectionPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export function ownerCrdName(contract: Contract): string {
  return `${contract.identity.plural}.${contract.identity.group}`;
}

/** The contracts whose CRD someone else owns, and so whose live CRD serve follows. */
export function externalContracts(registry: ContractRegistry): Contract[] {
  return registry.contracts.map((compiled) => compiled.contract).filter((contract) => !ownsCrd(contract));
}

export interface OwnerCrdTrackerOptions {
  mode: OwnerSchemaMode;
  /** The registry requests are decided with now, and the way to replace it (the server's). */
  registry: () => ContractRegistry;
  replaceRegistry: (next: ContractRegistry) => void;
  metrics: OwnerCrdMetrics;
  logger: Logger;
}

export interface OwnerCrdTracker {
  readonly contracts: readonly Contract[];
  /** The live CRD as read (undefined: it does not exist): compared, reported and, in live mode, compiled and swapped in. */
  observe(contract: Contract, crd: Record<string, unknown> | undefined): void;
  /** Whether the CRD is being followed. */
  following(contract: Contract, state: FollowState): void;
  /** In live mode, until every live CRD has been read once: why not ready. Always undefined in contract mode. */
  notReadyBecause(): string | undefined;
}

/**
 * The decisions about live CRDs, without the API: what to log, which series to set, which validators to swap in.
 * Each change is compared and compiled once, when it is read, never per request.
 */
export function createOwnerCrdTracker(options: OwnerCrdTrackerOptions): OwnerCrdTracker {
  const { mode, metrics, logger } = options;
  const contracts = externalContracts(options.registry());
  /** Per CRD: the drift last reported per version (words), to log a change once and not at every event. */
  const reported = new Map<string, Map<string, string>>();
  /** Per CRD: the resourceVersion and generation of the live CRD last read (a status-only change is no new schema). */
  const lastGeneration = new Map<string, unknown>();
  const read = new Set<string>();
  const lastFailure = new Map<string, string>();
  /** Per CRD, the versions validated with the live schema now. */
  const liveIn = new Map<string, Set<string>>();
  for (const contract of contracts) {
    metrics.watchUp.set({ crd: ownerCrdName(contract) }, 0);
    for (const version of contract.versions)
      metrics.liveSchema.set({ crd: ownerCrdName(contract), version: version.name }, 0);
  }

  function observe(contract: Contract, crd: Record<string, unknown> | undefined): void {
    const name = ownerCrdName(contract);
    read.add(name);
    if (crd === undefined) {
      // No CRD, no drift to speak of: its series go until it is back (an alert on drift == 1 is not left firing).
      for (const version of reported.get(name)?.keys() ?? []) {
        metrics.drift.remove({ crd: name, version });
        metrics.driftPaths.remove({ crd: name, version });
      }
      reported.delete(name);
      lastGeneration.delete(name);
      enforce(contract, new Set());
      logger.warn(
        { crd: name, schemaInUse: schemaInUse(contract) },
        "the owner's CRD does not exist: nothing to compare the contract's copy with",
      );
      return;
    }
    const generation = (crd.metadata as { generation?: unknown } | undefined)?.generation;
    // The API server bumps a CRD's generation at each change of its spec; its status (conditions, stored versions)
    // changes often and says nothing of the schema.
    if (generation !== undefined && lastGeneration.get(name) === generation) return;
    lastGeneration.set(name, generation);
    report(contract, name, crd);
    if (mode === 'live') swapIn(contract, name, crd);
  }

  function report(contract: Contract, name: string, crd: Record<string, unknown>): void {
    reportKind(contract, name, crd);
    const drifts = ownerCrdDrift(contract, crd);
    enforce(contract, new Set(drifts.filter((drift) => !drifted(drift)).map((drift) => drift.version)));
    const before = reported.get(name);
    const now = new Map<string, string>();
    for (const drift of drifts) {
      const labels = { crd: name, version: drift.version };
      metrics.drift.set(labels, drifted(drift) ? 1 : 0);
      metrics.driftPaths.set(labels, drift.differences.length);
      const words = describeVersionDrift(drift);
      now.set(drift.version, words.join('; '));
      if (before?.get(drift.version) === now.get(drift.version)) continue;
      if (drifted(drift)) {
        logger.warn(
          {
            crd: name,
            version: drift.version,
            presence: drift.presence,
            differingPaths: drift.differences.length,
            differences: words,
            schemaInUse: schemaInUse(contract, drift.version),
          },
          "the owner's CRD differs from the contract's copy",
        );
      } else if (before !== undefined) {
        logger.info({ crd: name, version: drift.version }, "the owner's CRD is in step with the contract's copy again");
      }
    }
    if (before === undefined && !drifts.some(drifted))
      logger.info(
        { crd: name, versions: drifts.map((d) => d.version) },
        "the owner's CRD is in step with the contract's copy",
      );
    reported.set(name, now);
  }

  /**
   * The API server names every object and request of the resource with the live CRD's kind: a contract that says
   * it otherwise (the CRD's postgresql written Postgresql) has the webhook deny every write, so it is an error.
   */
  function reportKind(contract: Contract, name: string, crd: Record<string, unknown>): void {
    const liveKind = servedKindOf(crd);
    if (liveKind === undefined || liveKind === contract.identity.kind) return;
    logger.error(
      { crd: name, liveKind, contractKind: contract.identity.kind },
      "the owner's CRD serves another kind than the contract declares: the API server sends the CRD's kind, so the " +
        "webhook denies every write of it; make the contract's kind equal the CRD's spec.names.kind",
    );
  }

  /**
   * The versions in step are validated by the API server with the contract's own schema before the webhook is
   * called: the validating webhook leaves them to it (enforcedSchemas), and compiles no validator for them. A
   * version that drifts, or a CRD that goes, hands the schema back to the webhook. A watch that fails keeps what it
   * knew: it resumes from the last resourceVersion, so a change made meanwhile arrives then (or a 410 lists again).
   */
  function enforce(contract: Contract, versions: ReadonlySet<string>): void {
    const { group, kind } = contract.identity;
    const current = options.registry().lookup(group, kind)?.enforcedSchemas;
    if (current !== undefined && current.size === versions.size && [...versions].every((v) => current.has(v))) return;
    options.replaceRegistry(withEnforcedSchemas(options.registry(), group, kind, versions));
  }

  /** The validators the live CRD's schemas compile to, or the reasons they do not: then the current ones stay. */
  function swapIn(contract: Contract, name: string, crd: Record<string, unknown>): void {
    const compiled = compileLive(contract, crd);
    if ('problems' in compiled) {
      metrics.schemaRefusals.inc({ crd: name });
      logger.error(
        { crd: name, problems: compiled.problems, schemaInUse: schemaInUse(contract) },
        "cannot validate with the owner's live CRD: kept the schema in use (refusing what it refuses, never admitting unchecked)",
      );
      return;
    }
    const { group, kind } = contract.identity;
    options.replaceRegistry(withValidators(options.registry(), group, kind, compiled.validators));
    for (const version of contract.versions)
      metrics.liveSchema.set({ crd: name, version: version.name }, compiled.validators.has(version.name) ? 1 : 0);
    liveIn.set(name, new Set(compiled.validators.keys()));
    logger.info(
      {
        crd: name,
        versions: [...compiled.validators.keys()],
        generation: crd.metadata && (crd.metadata as { generation?: unknown }).generation,
      },
      "validating with the owner's live CRD",
    );
  }

  function schemaInUse(contract: Contract, version?: string): 'live' | 'contract' {
    const live = liveIn.get(ownerCrdName(contract));
    return live !== undefined && (version === undefined ? live.size > 0 : live.has(version)) ? 'live' : 'contract';
  }

  function following(contract: Contract, state: FollowState): void {
    const name = ownerCrdName(contract);
    metrics.watchUp.set({ crd: name }, state.following ? 1 : 0);
    if (state.following) {
      if (lastFailure.delete(name)) logger.info({ crd: name }, "following the owner's CRD again");
      return;
    }
    const fields = logFieldsOf(state.error);
    lastFailure.set(name, String(fields['reason'] ?? (state.error as Error)?.message ?? state.error));
    const forbidden = fields['code'] === 401 || fields['code'] === 403;
    logger[forbidden ? 'error' : 'warn'](
      { crd: name, ...fields, retryInMs: state.retryInMs, schemaInUse: schemaInUse(contract) },
      forbidden
        ? "cannot follow the owner's CRD: not allowed (RBAC: get, list and watch on that customresourcedefinition); serving with the schema in use"
        : "cannot follow the owner's CRD: serving with the schema in use, trying again",
    );
  }

  return {
    contracts,
    observe,
    following,
    notReadyBecause() {
      if (mode !== 'live') return undefined;
      const unread = contracts.map(ownerCrdName).filter((name) => !read.has(name));
      if (unread.length === 0) return undefined;
      return `--owner-schema live: the owner's CRD ${unread.map((name) => `${name} has not been read yet${lastFailure.has(name) ? ` (${lastFailure.get(name)})` : ''}`).join(', ')}`;
    },
  };
}

/** Validators for the versions both the contract and the live CRD have, from the live schemas; or why not. */
export function compileLive(
  contract: Contract,
  crd: unknown,
): { validators: Map<string, ObjectValidator> } | { problems: string[] } {
  const ours = new Set(contract.versions.map((version) => version.name));
  const versions = liveVersions(crd).filter((version) => ours.has(version.name));
  const problems: string[] = [];
  // A compiler per change: ajv caches each schema it compiled, and a long-lived server sees many changes.
  const compiler = createSchemaCompiler();
  const validators = new Map<string, ObjectValidator>();
  for (const version of versions) {
    if (version.schema === undefined) {
      problems.push(`version ${version.name}: no schema.openAPIV3Schema`);
      continue;
    }
    const refused = checkStructural(version.schema, { statusSubresource: version.statusSubresource });
    if (refused.length > 0) {
      problems.push(...refused.map((problem) => `version ${version.name}: ${problem}`));
      continue;
    }
    try {
      validators.set(version.name, compiler.compile(version.schema));
    } catch (error) {
      problems.push(`version ${version.name}: ${(error as Error).message}`);
    }
  }
  return problems.length > 0 ? { problems } : { validators };
}

export interface FollowOwnerCrdsOptions {
  /** The API client; called again after a failure when it cannot be made yet (no kubeconfig loads yet). */
  api: () => Promise<KubeWatchApi>;
  tracker: OwnerCrdTracker;
  signal: AbortSignal;
}

/** Follows each external contract's CRD until the signal aborts; resolves when every follower has stopped. */
export async function followOwnerCrds({ api, tracker, signal }: FollowOwnerCrdsOptions): Promise<void> {
  await Promise.all(
    tracker.contracts.map(async (contract) => {
      let failures = 0;
      while (!signal.aborted) {
        let client: KubeWatchApi;
        try {
          client = await api();
        } catch (error) {
          failures += 1;
          const retryInMs = Math.min(1000 * 2 ** Math.min(failures - 1, 5), 30_000);
          tracker.following(contract, { following: false, error, retryInMs });
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, retryInMs);
            signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
          continue;
        }
        await watchNamedObject(client, {
          collectionPath: crdCollectionPath,
          name: ownerCrdName(contract),
          onObject: (crd) => tracker.observe(contract, crd),
          onState: (state) => tracker.following(contract, state),
          signal,
        });
      }
    }),
  );
}
