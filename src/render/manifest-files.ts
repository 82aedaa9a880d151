import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { renderAdmissionPolicies, renderPolicyFloorOverlay } from './admission-policy.ts';
import { renderCertManagerOverlay } from './cert-manager.ts';
import { renderCustomResourceDefinition, renderOwnerCrd, resourceName } from './custom-resource-definition.ts';
import { installNames, servicePort } from './in-cluster-names.ts';
import { renderKustomization } from './kustomization.ts';
import type { GeneratedFile, Manifest, ManifestFile } from './manifest.ts';
import type { ManifestOptions } from './manifest-options.ts';
import { renderMonitoring } from './monitoring.ts';
import { renderMutatingAdmissionPolicies } from './mutating-admission-policy.ts';
import { renderNetworkPolicyFile } from './network-policy.ts';
import { ownerCrdFollowing, renderOwnerCrdReadsFile } from './owner-crd-reads.ts';
import { renderCrdReadsFile } from './crd-reads.ts';
import { renderCrdGateReadsFile, renderCrdGateWebhook } from './crd-gate-webhook.ts';
import { renderScaleReadsFile, scaleBearing } from './scale-reads.ts';
import { renderSelfManagedCertsOverlay } from './self-managed-certs.ts';
import { serverMemoryFor } from './server-memory.ts';
import { renderNamespace, renderServerWorkload } from './server-workload.ts';
import { renderStorageMigration } from './storage-migration.ts';
import type { WebhookEndpoint } from './webhook-endpoint.ts';
import { renderMutatingWebhookConfigurations, renderValidatingWebhookConfiguration } from './webhook-configurations.ts';

const baseDir = 'base';
const migrationDir = 'migration';

/**
 * Everything crdgate needs in a cluster, as files: the installed state in base/ (numbered in apply order, namespace
 * first), and the storage migration in a folder of its own: running the Job is a step taken when a storage
 * version changes, not part of the installed state. With a URL, crdgate runs outside the cluster and its
 * in-cluster server is left out.
 */
export function renderManifestFiles(contracts: readonly Contract[], options: ManifestOptions): ManifestFile[] {
  const endpoint = webhookEndpointFor(options);
  const namespace = renderNamespace(options.namespace);
  // A CRD someone else owns (an operator's chart, OLM) is theirs to install, convert and migrate: crdgate renders
  // its webhooks, workload, RBAC and policy floor for it, and nothing of the CRD's own.
  const owned = contracts.filter(ownsCrd);
  // The server calls the API server for the objects behind /scale reviews, and to follow the CRDs of others.
  const crdGate = (options.crdGate ?? []).length > 0;
  const readsApiServer = scaleBearing(contracts).length > 0 || ownerCrdFollowing(contracts).length > 0 || crdGate;
  const ownerCrds = options.ownerCrds
    ? contracts.flatMap((contract) => {
        const crd = renderOwnerCrd(contract);
        return crd === undefined
          ? []
          : [
              {
                path: `${baseDir}/20-crd-${resourceName(contract.identity)}.yaml`,
                comment: "the CRD's owner's, for a local cluster without it",
                manifests: [crd],
              },
            ];
      })
    : [];
  return [
    ...(inCluster(options)
      ? [
          { path: `${baseDir}/00-namespace.yaml`, manifests: [namespace] },
          {
            path: `${baseDir}/10-crdgate-server.yaml`,
            manifests: renderServerWorkload(options, options.image, options.contracts, {
              readsApiServer,
              crdGate,
              memory: serverMemoryFor(contracts, { crdGate, ...options.serverMemory }),
            }),
          },
        ]
      : []),
    // Called by URL too: the identity crdgate runs with outside the cluster can be limited to it.
    ...renderScaleReadsFile(`${baseDir}/12-scale-reads.yaml`, contracts, options),
    ...renderOwnerCrdReadsFile(`${baseDir}/13-owner-crd-reads.yaml`, contracts, options),
    ...renderCrdReadsFile(`${baseDir}/14-crd-reads.yaml`, options.crdReads ?? [], options),
    ...renderCrdGateReadsFile(`${baseDir}/14-crd-gate-reads.yaml`, options.crdGate ?? [], options),
    ...(inCluster(options)
      ? [renderNetworkPolicyFile(`${baseDir}/15-network-policy.yaml`, options, { apiServerEgress: readsApiServer })]
      : []),
    ...owned.map((contract) => ({
      path: `${baseDir}/20-crd-${resourceName(contract.identity)}.yaml`,
      manifests: [renderCustomResourceDefinition(contract, endpoint)],
    })),
    ...ownerCrds,
    {
      path: `${baseDir}/30-webhook-configurations.yaml`,
      manifests: [
        withCrdGate(
          renderValidatingWebhookConfiguration(contracts, endpoint, options.name, options.webhooks),
          options.crdGate ?? [],
          endpoint,
        ),
        ...renderMutatingWebhookConfigurations(contracts, endpoint, options.name, options.webhooks),
      ],
    },
    // Called by URL, nothing of base/ lives in the namespace (it would be installed empty): only the migration's
    // ServiceAccount and Jobs do, so the Namespace goes with them.
    ...(owned.length > 0
      ? [
          {
            path: `${migrationDir}/storage-migration.yaml`,
            manifests: [
              ...(inCluster(options) ? [] : [namespace]),
              ...renderStorageMigration(owned, options, options.image, options.migration),
            ],
          },
        ]
      : []),
  ];
}

/**
 * The files, and the kustomizations that install them: `kubectl apply -k DIR` (the base), the cert-manager and
 * self-managed-certs overlays (only when no caBundle is given by hand, since each injects its own) and the
 * monitoring kustomization.
 * The overlays live beside base/, never inside the folder of the base they use: kustomize refuses that as a cycle.
 */
export function renderManifestTree(contracts: readonly Contract[], options: ManifestOptions): GeneratedFile[] {
  const files = renderManifestFiles(contracts, options);
  const inFolder = (dir: string) =>
    files.filter((file) => file.path.startsWith(`${dir}/`)).map((file) => file.path.slice(dir.length + 1));
  return [
    { path: 'kustomization.yaml', manifests: [renderKustomization('crdgate', { resources: [baseDir] })] },
    {
      path: `${baseDir}/kustomization.yaml`,
      manifests: [renderKustomization('crdgate-base', { resources: inFolder(baseDir) })],
    },
    ...files,
    ...(inCluster(options) && options.caBundlePem === undefined
      ? renderCertManagerOverlay('overlays/cert-manager', contracts, options)
      : []),
    // Called by URL too: crdgate outside the cluster can manage its certificate just the same (for the URL's host),
    // and without --ca-bundle nothing else gives the webhooks a caBundle there. The e2e tests run it that way.
    ...(options.caBundlePem === undefined
      ? renderSelfManagedCertsOverlay('overlays/self-managed-certs', contracts, options)
      : []),
    ...(inCluster(options) ? renderMonitoring('overlays/monitoring', options) : []),
    ...policyFloorOverlay(contracts, options),
  ];
}

/**
 * The policy floor is an overlay of its own, not part of the base: the API server runs policies before webhooks, so
 * in the base it would answer first for what it compiles, in the hub's field names and naming only the first
 * forbidden change, where crdgate's webhook answers in the client's version and names them all. It builds on what
 * gives the webhooks their caBundle: the base when it has one, else the cert-manager overlay. Called by URL without
 * a caBundle there is neither, and no overlay: Ignore would then skip a webhook the API server cannot trust without
 * a word. Nothing when no contract has anything the policies compile (a rule or a default).
 */
function policyFloorOverlay(contracts: readonly Contract[], options: ManifestOptions): GeneratedFile[] {
  const policies = [
    ...renderAdmissionPolicies(contracts, options.name),
    ...renderMutatingAdmissionPolicies(contracts, options.name),
  ];
  if (policies.length === 0) return [];
  const install = options.caBundlePem !== undefined ? '../../base' : inCluster(options) ? '../cert-manager' : undefined;
  return install === undefined
    ? []
    : renderPolicyFloorOverlay('overlays/policy-floor', contracts, options.name, install, policies);
}

/** The validating configuration, with the CRD gate's webhook after the contracts' when CRDs are named for it. */
function withCrdGate(configuration: Manifest, crdNames: readonly string[], endpoint: WebhookEndpoint): Manifest {
  if (crdNames.length === 0) return configuration;
  return {
    ...configuration,
    webhooks: [...(configuration.webhooks as unknown[]), renderCrdGateWebhook(crdNames, endpoint)],
  };
}

function inCluster(options: ManifestOptions): boolean {
  return options.url === undefined;
}

export function webhookEndpointFor(options: ManifestOptions): WebhookEndpoint {
  return {
    target:
      options.url !== undefined
        ? { url: options.url }
        : { service: { namespace: options.namespace, name: installNames(options.name).server, port: servicePort } },
    ...(options.caBundlePem !== undefined ? { caBundlePem: options.caBundlePem } : {}),
  };
}
