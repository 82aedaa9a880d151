import { KubeConfig } from '@kubernetes/client-node';
import { createKubeApi, type KubeWatchApi } from './kube-api.ts';

/** A KubeApi on a test's own HTTP server standing in for the API server: no credentials, no TLS to verify. */
export function kubeApiAt(url: string, timeoutMs: number): KubeWatchApi {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return createKubeApi(kubeConfig, { timeoutMs });
}
