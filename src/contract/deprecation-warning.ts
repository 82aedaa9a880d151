import type { Contract } from './contract-definition.ts';
import { compareVersionAge } from './values/version-age.ts';

/**
 * The warning kube-apiserver sends with every request in a deprecated version of the contract's kind (before
 * anything else of the request's): the version's own deprecationWarning, or the API server's default, which names
 * the newest served version that is not deprecated and is newer than this one. Undefined for a version that is not
 * deprecated.
 */
export function deprecationWarning(contract: Contract, versionName: string): string | undefined {
  const version = contract.versions.find((candidate) => candidate.name === versionName);
  if (!version?.deprecated) return undefined;
  if (version.deprecationWarning !== undefined) return version.deprecationWarning;
  const { group, kind } = contract.identity;
  const warning = `${group}/${versionName} ${kind} is deprecated`;
  const newer = contract.versions
    .filter((other) => other.served && !other.deprecated && compareVersionAge(versionName, other.name) < 0)
    .map((other) => other.name)
    .sort((a, b) => compareVersionAge(b, a));
  return newer.length === 0 ? warning : `${warning}; use ${group}/${newer[0]} ${kind}`;
}
