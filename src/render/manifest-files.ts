import type { Contract } from '../contract/define-contract.ts';
import { renderCustomResourceDefinition, resourceName } from './custom-resource-definition.ts';
import { serverName, servicePort } from './in-cluster-names.ts';
import type { ManifestFile } from './manifest.ts';
import type { ManifestOptions } from './manifest-options.ts';
import { renderNamespace, renderServerWorkload } from './server-workload.ts';
import { renderStorageMigration } from './storage-migration.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';
import { renderMutatingWebhookConfiguration, renderValidatingWebhookConfiguration } from './webhook-configurations.ts';

/**
 * Everything crdgate needs in a cluster, as files. The numbers order them for `kubectl apply -f DIR` (namespace
 * first). The storage migration sits in a folder of its own, which that command does not descend into: running
 * the Job is a step taken when a storage version changes, not part of the installed state.
 * With a URL, crdgate runs outside the cluster and its in-cluster server is left out.
 */
export function renderManifestFiles(contracts: readonly Contract[], options: ManifestOptions): ManifestFile[] {
  const endpoint = webhookEndpointFor(options);
  return [
    { path: '00-namespace.yaml', manifests: [renderNamespace(options.namespace)] },
    ...(options.url === undefined ? [{ path: '10-crdgate-server.yaml', manifests: renderServerWorkload(options.namespace, options.image, options.contracts) }] : []),
    ...contracts.map((contract) => ({
      path: `20-crd-${resourceName(contract.identity)}.yaml`,
      manifests: [renderCustomResourceDefinition(contract, endpoint)],
    })),
    {
      path: '30-webhook-configurations.yaml',
      manifests: [renderValidatingWebhookConfiguration(contracts, endpoint), renderMutatingWebhookConfiguration(contracts, endpoint)],
    },
    { path: 'migration/storage-migration.yaml', manifests: renderStorageMigration(contracts, options.namespace, options.image) },
  ];
}

export function webhookEndpointFor(options: ManifestOptions): WebhookEndpoint {
  return {
    target: options.url !== undefined ? { url: options.url } : { service: { namespace: options.namespace, name: serverName, port: servicePort } },
    ...(options.caBundlePem !== undefined ? { caBundlePem: options.caBundlePem } : {}),
  };
}
