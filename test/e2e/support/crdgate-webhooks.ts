import { randomUUID } from 'node:crypto';
import {
  ApiextensionsV1Api,
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { Contract } from '../../../src/contract/contract-definition.ts';
import { createContractRegistry } from '../../../src/contract/registry.ts';
import { geoDatabaseContract } from '../../../src/contracts/geodatabase/index.ts';
import { renderCustomResourceDefinition } from '../../../src/render/custom-resource-definition.ts';
import type { Manifest } from '../../../src/render/manifest.ts';
import type { WebhookEndpoint } from '../../../src/render/webhook-endpoint.ts';
import {
  renderMutatingWebhookConfigurations,
  renderValidatingWebhookConfiguration,
} from '../../../src/render/webhook-configurations.ts';
import { validatingWebhookName } from '../../../src/render/webhook-names.ts';
import type { ServeOptions } from '../../../src/server/serve.ts';
import { startTestServer, type TestServer } from '../../integration/support/test-server.ts';
import { isNotFound, refusal } from './api-error.ts';
import { eventually } from '../../../src/local-loop/eventually.ts';
import { geoDatabases, invalidGeoDatabase, validGeoDatabase } from './geodatabases.ts';
import { serverSideApply } from '../../../src/local-loop/server-side-apply.ts';

/**
 * crdgate's real server, in this process on 127.0.0.1, and the CRD and webhook configurations crdgate renders,
 * pointing the API server at it by URL and trusting its CA.
 */
export interface CrdgateInFront extends CrdgateRegistration {
  server: TestServer;
}

/** What the API server is told about a crdgate: the CRD (naming it for conversion) and the webhook configurations. */
export interface CrdgateRegistration {
  crd: Manifest;
  /** Uniquely named per run, so that nothing is left to intercept writes after this file is done. */
  webhookConfigurations: Manifest[];
}

/**
 * `contract` is the built-in GeoDatabase unless given: another contract of the kind GeoDatabase (the same CRD,
 * with a scale subresource, say) works with every helper here, whose probes write GeoDatabases.
 */
export async function startCrdgateForApiServer(
  overrides: Partial<ServeOptions> = {},
  contract?: Contract,
): Promise<CrdgateInFront> {
  const server = await startTestServer({
    ...(contract ? { registry: createContractRegistry([contract]) } : {}),
    ...overrides,
  });
  return { server, ...crdgateRegistration(server.port, server.ca, contract) };
}

/** The registration of a crdgate listening on 127.0.0.1:port with a certificate signed by `ca`. */
export function crdgateRegistration(
  port: number,
  ca: Buffer,
  contract: Contract = geoDatabaseContract(),
): CrdgateRegistration {
  const endpoint: WebhookEndpoint = { target: { url: `https://127.0.0.1:${port}` }, caBundlePem: ca.toString('utf8') };
  const name = `crdgate-e2e-${randomUUID().slice(0, 8)}`;
  return {
    crd: renderCustomResourceDefinition(contract, endpoint),
    webhookConfigurations: [
      renderValidatingWebhookConfiguration([contract], endpoint),
      ...renderMutatingWebhookConfigurations([contract], endpoint),
    ].map((configuration) => ({ ...configuration, metadata: { ...configuration.metadata, name } })),
  };
}

export async function applyCrd(kubeConfig: KubeConfig, crd: Manifest): Promise<void> {
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  // An earlier file may have just deleted it; applying to a CRD that is still being deleted fails.
  await eventually(`the previous ${crd.metadata.name} to be gone`, async () => {
    const existing = await extensions
      .readCustomResourceDefinition({ name: crd.metadata.name })
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
    return existing?.metadata?.deletionTimestamp === undefined ? true : undefined;
  });
  await serverSideApply(kubeConfig, [crd]);
  await eventually(`${crd.metadata.name} to be established`, async () => {
    const read = await extensions.readCustomResourceDefinition({ name: crd.metadata.name });
    return read.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}

/**
 * Applies the webhook configurations and waits until the API server calls both webhooks: it picks configurations
 * up from a watch, a moment after they are stored. Probes are server-side dry runs, so they persist nothing.
 */
export async function applyWebhookConfigurations(
  kubeConfig: KubeConfig,
  gate: CrdgateRegistration,
  namespace: string,
): Promise<void> {
  await serverSideApply(kubeConfig, gate.webhookConfigurations);
  const customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
  const probe = (body: object) =>
    customObjects.createNamespacedCustomObject({ ...geoDatabases, namespace, body, dryRun: 'All' });
  const denial = `admission webhook "${validatingWebhookName(geoDatabaseContract())}" denied`;
  await eventually('the validating webhook to deny an invalid GeoDatabase', async () => {
    // Until then the API server answers 404 (CRD not served yet) or accepts the object (no webhook yet).
    const status = await refusal(probe(invalidGeoDatabase(namespace, 'webhook-probe'))).catch(() => undefined);
    return status?.message.includes(denial) ? true : undefined;
  });
  await eventually('the mutating webhook to default a valid GeoDatabase', async () => {
    const created = (await probe(validGeoDatabase(namespace, 'webhook-probe'))) as { spec?: { readReplicas?: number } };
    return created.spec?.readReplicas === 0 ? true : undefined;
  });
}

/** Removes what this file put in front of the API server, webhooks first, so no write is ever sent to a stopped crdgate. */
export async function removeCrdgate(
  kubeConfig: KubeConfig,
  gate: CrdgateRegistration & { server: { stop(): Promise<void> } },
): Promise<void> {
  const admission = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const extensions = kubeConfig.makeApiClient(ApiextensionsV1Api);
  const ignoreNotFound = (error: unknown): void => {
    if (!isNotFound(error)) throw error;
  };
  const [validating, mutating] = gate.webhookConfigurations;
  try {
    if (validating)
      await admission.deleteValidatingWebhookConfiguration({ name: validating.metadata.name }).catch(ignoreNotFound);
    if (mutating)
      await admission.deleteMutatingWebhookConfiguration({ name: mutating.metadata.name }).catch(ignoreNotFound);
    // The CRD names this server for conversion: leaving it would break the next file's reads in other versions.
    await extensions.deleteCustomResourceDefinition({ name: gate.crd.metadata.name }).catch(ignoreNotFound);
    await eventually(`${gate.crd.metadata.name} to be deleted`, () =>
      extensions.readCustomResourceDefinition({ name: gate.crd.metadata.name }).then(
        () => undefined,
        (error: unknown) => {
          if (isNotFound(error)) return true;
          throw error;
        },
      ),
    );
  } finally {
    await gate.server.stop();
  }
}
