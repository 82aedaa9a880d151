import { serveDefaults } from '../../config.ts';
import type { Contract } from '../../contract/contract-definition.ts';
import { convertsByWebhook, resourceName } from '../custom-resource-definition.ts';
import type { Manifest } from '../manifest.ts';
import { webhookPaths } from '../webhook-endpoint.ts';
import { olmContainerPort } from './olm-install.ts';

/** What names a bundle in its catalog: the package, its channel, its version, and the version it upgrades. */
export interface BundleIdentity {
  /** The package (an operator's name in a catalog): a DNS-1123 label. */
  packageName: string;
  /** The channel a Subscription follows, the bundle's default channel too. */
  channel: string;
  /** The bundle's version, semver: the CSV is `PACKAGE.vVERSION`. */
  version: string;
  /** The version this bundle upgrades (`spec.replaces`), from the same package. */
  replaces?: string;
}

/** What catalogs and consoles show of a bundle, where the author gives it. */
export interface CsvPresentation {
  /** Example objects of the kinds the CSV owns (`alm-examples`): a console offers them as templates. */
  examples?: readonly Record<string, unknown>[];
  /** The operator's icon, base64 and its media type. */
  icon?: { base64data: string; mediatype: string };
}

/**
 * The permissions a CSV grants the ServiceAccount its Deployment runs as: OLM creates the ServiceAccount, a Role
 * (or ClusterRole) of these rules and its binding.
 */
export interface Permission {
  serviceAccountName: string;
  rules: unknown[];
}

/** One webhook of the rendered configurations, as a CSV describes it (operator-framework/api WebhookDescription). */
export interface WebhookDescription {
  type: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ConversionWebhook';
  generateName: string;
  deploymentName: string;
  containerPort: number;
  targetPort: number;
  admissionReviewVersions: string[];
  sideEffects: 'None';
  webhookPath: string;
  [field: string]: unknown;
}

export interface ClusterServiceVersionParts {
  identity: BundleIdentity;
  contracts: readonly Contract[];
  image: string;
  deployment: Manifest;
  permissions: Permission[];
  clusterPermissions: Permission[];
  webhooks: WebhookDescription[];
  /** The version crdgate itself is: the bundle says which crdgate built it. */
  crdgateVersion: string;
  presentation: CsvPresentation;
}

/**
 * The Kubernetes release crdgate's webhooks need: their matchConditions (which OLM leaves out, but the kustomize and
 * Helm installs of the same contracts carry) and the CRD validation rules the contracts render are GA there.
 */
export const minKubeVersion = '1.30.0';

export function clusterServiceVersionName(identity: Pick<BundleIdentity, 'packageName'>, version: string): string {
  return `${identity.packageName}.v${version}`;
}

/** The ClusterServiceVersion: what OLM installs (the Deployment, its permissions, the webhooks) and what it owns. */
export function renderClusterServiceVersion(parts: ClusterServiceVersionParts): Manifest {
  const { identity, contracts, deployment } = parts;
  const kinds = contracts.map((contract) => `${contract.identity.kind} (${contract.identity.group})`).join(', ');
  const description =
    `Admission webhooks served by crdgate for ${kinds}: validation of every write against the contract ` +
    `(schema, invariants, the changes each lifecycle state allows, deletion rules), computed defaults, and ` +
    `conversion between the served versions of the CRDs it owns.`;
  const owned = contracts.filter((contract) => contract.crdOwner !== 'external');
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: clusterServiceVersionName(identity, identity.version),
      annotations: {
        capabilities: 'Basic Install',
        containerImage: parts.image,
        description,
        'operators.operatorframework.io/builder': `crdgate-${parts.crdgateVersion}`,
        ...(parts.presentation.examples !== undefined && parts.presentation.examples.length > 0
          ? { 'alm-examples': JSON.stringify(parts.presentation.examples) }
          : {}),
      },
    },
    spec: {
      displayName: identity.packageName,
      description,
      version: identity.version,
      ...(identity.replaces !== undefined ? { replaces: clusterServiceVersionName(identity, identity.replaces) } : {}),
      minKubeVersion,
      maturity: identity.channel,
      provider: { name: identity.packageName },
      keywords: ['admission', 'webhook', 'validation', 'conversion'],
      ...(parts.presentation.icon !== undefined ? { icon: [parts.presentation.icon] } : {}),
      // A webhook configuration is cluster-wide, and OLM installs conversion webhooks only for AllNamespaces.
      installModes: [
        { type: 'OwnNamespace', supported: false },
        { type: 'SingleNamespace', supported: false },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      customresourcedefinitions: {
        ...(owned.length > 0 ? { owned: owned.flatMap(ownedCrdDescriptions) } : {}),
      },
      install: {
        strategy: 'deployment',
        spec: {
          deployments: [
            {
              name: deployment.metadata.name,
              label: deployment.metadata.labels ?? {},
              spec: deployment['spec'],
            },
          ],
          ...(parts.permissions.length > 0 ? { permissions: parts.permissions } : {}),
          ...(parts.clusterPermissions.length > 0 ? { clusterPermissions: parts.clusterPermissions } : {}),
        },
      },
      webhookdefinitions: parts.webhooks,
    },
  };
}

/**
 * An owned CRD as the CSV lists what it provides: in the hub version, the one its rules are written in and a console
 * should offer to create (listing older served versions too would ask an example of each of them).
 */
function ownedCrdDescriptions(contract: Contract): Record<string, unknown>[] {
  const { identity } = contract;
  const hub = contract.versions.find((version) => version.name === contract.hub)!;
  return [
    {
      name: resourceName(identity),
      version: hub.name,
      kind: identity.kind,
      displayName: identity.kind,
      description: schemaDescription(hub.schema) ?? `${identity.kind} objects, guarded by crdgate`,
    },
  ];
}

function schemaDescription(schema: unknown): string | undefined {
  const description = (schema as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' && description.trim() !== '' ? description.trim() : undefined;
}

/**
 * The conversion webhook of each owned CRD with more than one version: OLM points the CRD's spec.conversion at the
 * Service it creates, with its CA, when it installs the CSV (and again on each upgrade).
 */
export function conversionWebhookDescriptions(
  contracts: readonly Contract[],
  deploymentName: string,
): WebhookDescription[] {
  return contracts.filter(convertsByWebhook).map((contract) => ({
    type: 'ConversionWebhook',
    generateName: `convert.${resourceName(contract.identity)}`,
    deploymentName,
    containerPort: olmContainerPort,
    targetPort: serveDefaults.port,
    // OLM gives the CRD these as its conversionReviewVersions.
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    webhookPath: webhookPaths.convert,
    conversionCRDs: [resourceName(contract.identity)],
  }));
}
