import { KubeApiError } from '../kube/kube-api-error.ts';

/**
 * What to do when the API server refused a CRD because an edit took out a version its status.storedVersions still
 * lists (objects were stored in it): run `crdgate migrate` against the local control plane while the last good
 * generation serves, which rewrites them in the storage version and trims the list, then save the contract again.
 * Undefined for any other failure.
 */
export function storedVersionsHint(error: unknown, kubeconfigPath: string): string | undefined {
  if (!(error instanceof KubeApiError) || error.status.details?.kind !== 'CustomResourceDefinition') return undefined;
  const versions = (error.status.details.causes ?? [])
    .filter((cause) => cause.field?.startsWith('status.storedVersions[') === true)
    .map((cause) => /Invalid value: "([^"]+)"/.exec(cause.message ?? '')?.[1])
    .filter((version): version is string => version !== undefined);
  const crd = error.status.details.name;
  if (versions.length === 0 || crd === undefined) return undefined;
  const named = versions.join(', ');
  return (
    `${crd} still has objects stored in ${named} (its status.storedVersions lists ${versions.length === 1 ? 'it' : 'them'}): ` +
    `run \`crdgate migrate --resource ${crd} --kubeconfig ${kubeconfigPath}\` while this generation serves ` +
    `(it rewrites them in the storage version and trims status.storedVersions), then save the contract again`
  );
}
