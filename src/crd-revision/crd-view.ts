import { isPlainObject } from '../contract/values/kube-object.ts';

/** One version of a CRD as far as a revision is compared: plain values, read without trusting the input's shape. */
export interface CrdVersionView {
  name: string;
  served: boolean;
  storage: boolean;
  schema: Record<string, unknown> | undefined;
  printerColumns: Record<string, unknown>[];
  selectableFields: Record<string, unknown>[];
  /** spec.versions[].subresources: `status` and `scale` ({} when it has none). */
  subresources: Record<string, unknown>;
}

/** A CRD (apiextensions.k8s.io/v1, parsed YAML or JSON) as the comparison reads it. */
export interface CrdView {
  /** metadata.name (`plural.group`), '' when it has none. */
  name: string;
  scope: unknown;
  names: Record<string, unknown>;
  versions: CrdVersionView[];
  conversion: Record<string, unknown>;
  /** status.storedVersions: set on a CRD read from a cluster, seldom in a file. */
  storedVersions: string[];
}

/**
 * Reads what the comparison needs from a CRD object. Anything missing or of the wrong type reads as absent: a
 * revision in a tree may be half-written, and the comparison must say what changed rather than fail on it (the
 * new tree's CRDs are judged as kube-apiserver would create them elsewhere).
 */
export function viewCrd(crd: unknown): CrdView {
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  const status = isPlainObject(crd) && isPlainObject(crd.status) ? crd.status : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  const seen = new Set<string>();
  const metadata = isPlainObject(crd) && isPlainObject(crd.metadata) ? crd.metadata : {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    scope: spec.scope ?? 'Namespaced',
    names: isPlainObject(spec.names) ? spec.names : {},
    // A version named twice is refused by the API server; the first one counts here.
    versions: versions
      .filter((version) => typeof version.name === 'string' && !seen.has(version.name) && seen.add(version.name))
      .map((version) => ({
        name: version.name as string,
        served: version.served === true,
        storage: version.storage === true,
        schema:
          isPlainObject(version.schema) && isPlainObject(version.schema.openAPIV3Schema)
            ? version.schema.openAPIV3Schema
            : undefined,
        printerColumns: Array.isArray(version.additionalPrinterColumns)
          ? version.additionalPrinterColumns.filter(isPlainObject)
          : [],
        selectableFields: Array.isArray(version.selectableFields) ? version.selectableFields.filter(isPlainObject) : [],
        subresources: isPlainObject(version.subresources) ? version.subresources : {},
      })),
    conversion: isPlainObject(spec.conversion) ? spec.conversion : {},
    storedVersions: Array.isArray(status.storedVersions)
      ? status.storedVersions.filter((v): v is string => typeof v === 'string')
      : [],
  };
}
