import {
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Manifest } from '../render/manifest.ts';
import { manifestsToYaml } from '../render/manifest-yaml.ts';
import { refusalsAsKubeApiErrors } from './refusals-as-kube-api-errors.ts';

const fieldManager = 'crdgate';

/**
 * Server-side applies rendered manifests, going through the YAML crdgate writes, as `kubectl apply` would. The
 * detour is needed as much as it is wanted: client-node serializes built-in kinds through its own models, which
 * drop wire names such as `x-kubernetes-list-type` from a plain object; its YAML loader maps them onto the models.
 * A refusal throws KubeApiError, its message the API server's.
 */
export async function serverSideApply(kubeConfig: KubeConfig, manifests: readonly Manifest[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const object of loadAllYaml(manifestsToYaml(manifests)) as KubernetesObject[]) {
    await refusalsAsKubeApiErrors(() =>
      client.patch(object, undefined, undefined, fieldManager, true, PatchStrategy.ServerSideApply),
    );
  }
}
