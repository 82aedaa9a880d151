import { randomUUID } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import type { ProvidedControlPlane } from '../provided-context.ts';
import {
  applyCrd,
  applyWebhookConfigurations,
  removeCrdgate,
  startCrdgateForApiServer,
  type CrdgateInFront,
} from './crdgate-webhooks.ts';

export interface CrdgateScene {
  namespace: string;
  kubeConfig: KubeConfig;
  customObjects: CustomObjectsApi;
  gate: CrdgateInFront;
}

/**
 * For one e2e file: a fresh namespace, and crdgate running in this process with its CRD and webhooks registered
 * with the API server (removed again after the file). Call it inside the file's describe; read the scene in tests.
 */
export function useCrdgateInFront(controlPlane: ProvidedControlPlane, prefix: string): () => CrdgateScene {
  let scene: CrdgateScene | undefined;
  const namespace = `${prefix}-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
    await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    const gate = await startCrdgateForApiServer();
    scene = { namespace, kubeConfig, customObjects: kubeConfig.makeApiClient(CustomObjectsApi), gate };
    await applyCrd(kubeConfig, gate.crd);
    await applyWebhookConfigurations(kubeConfig, gate, namespace);
  });
  afterAll(async () => {
    // No controller-manager runs, so the namespace would stay Terminating: it is left, its name unique to the run.
    if (scene) await removeCrdgate(scene.kubeConfig, scene.gate);
  });
  return () => {
    if (!scene) throw new Error('the crdgate scene is not set up (is the call inside a describe?)');
    return scene;
  };
}
