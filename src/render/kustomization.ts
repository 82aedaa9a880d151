import type { Manifest } from './manifest.ts';

/**
 * A kustomization, rendered like every other generated file. It transforms nothing it lists (no name prefixes, no
 * common labels), so that `kubectl kustomize` of the base is exactly the files beside it.
 */
export function renderKustomization(name: string, fields: Record<string, unknown>): Manifest {
  return { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', metadata: { name }, ...fields };
}
