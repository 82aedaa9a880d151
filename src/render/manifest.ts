/**
 * A Kubernetes object as crdgate renders it: plain JSON data, typed only as far as rendering and serialization
 * need. Kept free of @kubernetes/client-node so that rendering has no dependency beyond the contract model.
 */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: ManifestMetadata;
  [field: string]: unknown;
}

export interface ManifestMetadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** A group of manifests that is applied together, and the path (relative to the output folder) it is written to. */
export interface ManifestFile {
  path: string;
  manifests: Manifest[];
  /** Written under the generated-file header: what a reader must know before changing or applying the file. */
  comment?: string;
}

/** A generated file that is not Kubernetes YAML (a Grafana dashboard, which kustomize turns into a ConfigMap). */
export interface JsonFile {
  path: string;
  json: unknown;
}

/** A generated file of text as it is (a Helm chart's templates and values, which are not YAML objects). */
export interface TextFile {
  path: string;
  text: string;
}

export type GeneratedFile = ManifestFile | JsonFile | TextFile;
