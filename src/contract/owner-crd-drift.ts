import type { Contract } from './contract-definition.ts';
import { isPlainObject } from './values/kube-object.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { describeSchemaDifference, diffSchemas, type SchemaDifference } from './schema/schema-diff.ts';

/** How one version of a contract stands against the owner's CRD as the API server holds it. */
export interface VersionDrift {
  version: string;
  /** `both`: compared field by field; `live-only`: the owner added a version the contract lacks; `contract-only`: the owner dropped it. */
  presence: 'both' | 'live-only' | 'contract-only';
  /** With `both`: where the live schema differs from the contract's copy (empty: in step). */
  differences: SchemaDifference[];
}

/** One version of a CRD as the API server serves it. */
export interface LiveVersion {
  name: string;
  served: boolean;
  schema: JSONSchemaProps | undefined;
  statusSubresource: boolean;
}

/** The kind a CRD object serves (its spec.names.kind), which the API server names every object and request with. */
export function servedKindOf(crd: unknown): string | undefined {
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  const kind = isPlainObject(spec.names) ? spec.names.kind : undefined;
  return typeof kind === 'string' ? kind : undefined;
}

/** The versions of a CRD object (as read from the API server), in its order. */
export function liveVersions(crd: unknown): LiveVersion[] {
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  return versions.map((version) => ({
    name: String(version.name),
    served: version.served === true,
    schema:
      isPlainObject(version.schema) && isPlainObject(version.schema.openAPIV3Schema)
        ? (version.schema.openAPIV3Schema as JSONSchemaProps)
        : undefined,
    statusSubresource: isPlainObject(version.subresources) && version.subresources.status != null,
  }));
}

/**
 * Each version of the contract and of the live CRD, in the contract's order then the live-only ones, against the
 * other side: the live schema compared with the contract's copy (the contract first, so "added" means the owner
 * added it). A version whose live schema is missing compares against an empty schema.
 */
export function ownerCrdDrift(contract: Pick<Contract, 'versions'>, liveCrd: unknown): VersionDrift[] {
  const live = new Map(liveVersions(liveCrd).map((version) => [version.name, version]));
  const ours = new Set(contract.versions.map((version) => version.name));
  return [
    ...contract.versions.map((version): VersionDrift => {
      const theirs = live.get(version.name);
      if (theirs === undefined) return { version: version.name, presence: 'contract-only', differences: [] };
      return { version: version.name, presence: 'both', differences: diffSchemas(version.schema, theirs.schema ?? {}) };
    }),
    ...[...live.keys()]
      .filter((name) => !ours.has(name))
      .map((name): VersionDrift => ({ version: name, presence: 'live-only', differences: [] })),
  ];
}

/** Whether the version is out of step: a difference, or a version only one side has. */
export function drifted(drift: VersionDrift): boolean {
  return drift.presence !== 'both' || drift.differences.length > 0;
}

/** The first `limit` differences in words, and a note on a version only one side has, for a log line or a warning. */
export function describeVersionDrift(drift: VersionDrift, limit = 5): string[] {
  if (drift.presence === 'live-only') return [`version ${drift.version} is in the live CRD only`];
  if (drift.presence === 'contract-only') return [`version ${drift.version} is not in the live CRD`];
  const shown = drift.differences.slice(0, limit).map(describeSchemaDifference);
  const more = drift.differences.length - shown.length;
  return more > 0 ? [...shown, `and ${more} more`] : shown;
}
