import {
  ownsCrd,
  type Contract,
  type ContractIdentity,
  type VersionDefinition,
} from '../contract/contract-definition.ts';
import { schemaForApiServer } from './api-server-schema.ts';
import type { Manifest } from './manifest.ts';
import { clientConfigFor, webhookPaths, type WebhookEndpoint } from './webhook-endpoint.ts';

/** `plural.group`: the CRD's name, and how the migration job and RBAC name the resource. */
export function resourceName(identity: ContractIdentity): string {
  return `${identity.plural}.${identity.group}`;
}

/**
 * With more than one version, the API server converts between them by calling crdgate's conversion webhook; never
 * for a CRD someone else owns, which its owner converts (crdgate must not inject a caBundle into it either).
 */
export function convertsByWebhook(contract: Contract): boolean {
  return contract.versions.length > 1 && ownsCrd(contract);
}

/** The owner's CRD of a contract that does not own its CRD, as the owner installs it, for a local cluster to apply. */
export function renderOwnerCrd(contract: Contract): Manifest | undefined {
  if (ownsCrd(contract) || contract.ownerCrd === undefined) return undefined;
  const crd = structuredClone(contract.ownerCrd) as unknown as Manifest;
  // What only a stored object has would make a server-side apply fail; the owner's record of its last apply is its own.
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _created,
    managedFields: _managed,
    generation: _generation,
    ...metadata
  } = crd.metadata as unknown as Record<string, unknown>;
  const { status: _status, ...rest } = crd as unknown as Record<string, unknown>;
  return { ...(rest as unknown as Manifest), metadata: metadata as unknown as Manifest['metadata'] };
}

/** The apiextensions.k8s.io/v1 CRD of a contract; a single version needs no conversion at all. */
export function renderCustomResourceDefinition(contract: Contract, endpoint: WebhookEndpoint): Manifest {
  const { identity } = contract;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: resourceName(identity),
      ...(contract.crdAnnotations && Object.keys(contract.crdAnnotations).length > 0
        ? { annotations: { ...contract.crdAnnotations } }
        : {}),
    },
    spec: {
      group: identity.group,
      names: {
        kind: identity.kind,
        listKind: identity.listKind ?? `${identity.kind}List`,
        plural: identity.plural,
        singular: identity.singular,
        ...(identity.shortNames?.length ? { shortNames: [...identity.shortNames] } : {}),
        ...(identity.categories?.length ? { categories: [...identity.categories] } : {}),
      },
      scope: identity.scope,
      versions: contract.versions.map((version) => renderVersion(version, ownsCrd(contract))),
      conversion: convertsByWebhook(contract)
        ? {
            strategy: 'Webhook',
            webhook: {
              conversionReviewVersions: ['v1'],
              clientConfig: clientConfigFor(endpoint, webhookPaths.convert),
            },
          }
        : { strategy: 'None' },
    },
  };
}

/**
 * A version as the CRD declares it. The schema of a CRD crdgate owns carries crdgate's own formats as CEL rules the API
 * server holds (schemaForApiServer); an owner's stays as the owner wrote it, which is what the API server holds.
 */
function renderVersion(version: VersionDefinition, owned: boolean): Record<string, unknown> {
  return {
    name: version.name,
    served: version.served,
    storage: version.storage,
    ...(version.deprecated ? { deprecated: true } : {}),
    ...(version.deprecated && version.deprecationWarning !== undefined
      ? { deprecationWarning: version.deprecationWarning }
      : {}),
    // A copy: the rendered object must not share (and let a caller mutate) the contract's schema.
    schema: { openAPIV3Schema: owned ? schemaForApiServer(version.schema) : structuredClone(version.schema) },
    ...(version.printerColumns?.length
      ? { additionalPrinterColumns: version.printerColumns.map((column) => ({ ...column })) }
      : {}),
    ...(version.subresources && Object.keys(version.subresources).length > 0
      ? { subresources: structuredClone(version.subresources) }
      : {}),
    ...(version.selectableFields?.length
      ? { selectableFields: version.selectableFields.map((field) => ({ jsonPath: field.jsonPath })) }
      : {}),
  };
}
