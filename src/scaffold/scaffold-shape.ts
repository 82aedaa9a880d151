import { isDns1035Label } from '../contract/values/dns-names.ts';

/** What a scaffolded kind looks like beyond its names: its scope and its versions. */
export interface ScaffoldShape {
  scope: 'Namespaced' | 'Cluster';
  /** Every version, in the order given (the CRD lists them so). */
  versions: string[];
  /** The version validation, defaults and rules are written against. */
  hub: string;
  /**
   * The version objects are stored in: the hub, unless the kind is already stored in an older one (in production
   * before crdgate), which stays the storage version until docs/migration.md's runbook moves it.
   */
  storage: string;
}

export const scopes = ['Namespaced', 'Cluster'] as const;

/**
 * The shape from the command's flags: versions comma-separated (default v1), the hub the last of them unless
 * named, the storage version the hub unless named, the scope Namespaced unless named. Returns the problems instead
 * when there are any, as sentences.
 */
export function scaffoldShape(flags: {
  scope?: string;
  versions?: string;
  hub?: string;
  storage?: string;
}): ScaffoldShape | { problems: string[] } {
  const problems: string[] = [];
  const scope = flags.scope ?? 'Namespaced';
  if (!(scopes as readonly string[]).includes(scope))
    problems.push(`--scope "${scope}" must be ${scopes.join(' or ')}`);
  const versions = (flags.versions ?? 'v1').split(',').map((version) => version.trim());
  for (const version of versions) {
    if (!isVersionName(version)) {
      problems.push(
        `--versions: "${version}" is not a version name: a lowercase DNS-1035 label, like v1, v1beta1 or v2alpha3`,
      );
    }
  }
  const repeated = versions.filter((version, index) => versions.indexOf(version) !== index);
  if (repeated.length > 0) problems.push(`--versions names ${[...new Set(repeated)].join(', ')} more than once`);
  const hub = flags.hub ?? versions.at(-1)!;
  if (!versions.includes(hub)) problems.push(`--hub "${hub}" is not one of the versions (${versions.join(', ')})`);
  const storage = flags.storage ?? hub;
  if (!versions.includes(storage))
    problems.push(`--storage "${storage}" is not one of the versions (${versions.join(', ')})`);
  if (problems.length > 0) return { problems };
  return { scope: scope as ScaffoldShape['scope'], versions, hub, storage };
}

/**
 * A CRD version name as the API server accepts one: a DNS-1035 label (a lowercase letter first, then letters,
 * digits and dashes, at most 63). Names like v1beta1 also sort as Kubernetes versions; others sort after them.
 */
export function isVersionName(name: string): boolean {
  return isDns1035Label(name);
}

/** The versions other than the hub: each needs a conversion. */
export function spokeVersions(shape: ScaffoldShape): string[] {
  return shape.versions.filter((version) => version !== shape.hub);
}

/** A version name as part of an identifier in the generated code: v1beta1 -> V1beta1, v2-preview -> V2Preview. */
export function versionIdentifier(version: string): string {
  return version
    .split('-')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** A version name as the start of a variable's name in the generated code: v1beta1 -> v1beta1, v2-preview -> v2Preview. */
export function versionVariable(version: string): string {
  const type = versionIdentifier(version);
  return type[0]!.toLowerCase() + type.slice(1);
}

/** A version name as a key of an object literal: quoted only when it is no identifier (v2-preview). */
export function versionKey(version: string): string {
  return /^[a-z][a-z0-9]*$/.test(version) ? version : `'${version}'`;
}
