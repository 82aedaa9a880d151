import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate, type PemPair } from '../../../src/certs/pki.ts';

// What OLM (v0's olm-operator; OLM v1's registry+v1 renderer does the same) creates from a ClusterServiceVersion
// whose install strategy serves webhooks, as operator-lifecycle-manager's pkg/controller/install does it
// (certresources.go: the Service, the serving pair's Secret and where the pod mounts it; webhook.go: the webhook
// configurations and the CRD's conversion) and operator-framework/api's WebhookDescription.GetValidatingWebhook and
// GetMutatingWebhook. No OLM runs here (it is not a Go module the suite can build), so the test plays its part,
// the objects it would create, and the API server and crdgate do the rest for real.

export interface WebhookDescription {
  type: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook' | 'ConversionWebhook';
  generateName: string;
  deploymentName: string;
  containerPort?: number;
  targetPort?: number | string;
  rules?: unknown[];
  failurePolicy?: string;
  matchPolicy?: string;
  objectSelector?: unknown;
  sideEffects: string;
  timeoutSeconds?: number;
  admissionReviewVersions: string[];
  reinvocationPolicy?: string;
  webhookPath?: string;
  conversionCRDs?: string[];
}

export interface ClusterServiceVersion {
  metadata: { name: string };
  spec: {
    install: {
      strategy: string;
      spec: {
        deployments: Array<{ name: string; label?: Record<string, string>; spec: any }>;
        permissions?: Array<{ serviceAccountName: string; rules: unknown[] }>;
        clusterPermissions?: Array<{ serviceAccountName: string; rules: unknown[] }>;
      };
    };
    installModes: Array<{ type: string; supported: boolean }>;
    customresourcedefinitions?: { owned?: Array<{ name: string }> };
    webhookdefinitions?: WebhookDescription[];
  };
}

/** Where OLM mounts its serving pair: the two volumes of certresources.go's AddDefaultCertVolumeAndVolumeMounts. */
export const olmCertMounts = {
  apiService: { volume: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
  webhook: { volume: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' },
} as const;

/** The Service name OLM gives a Deployment's webhooks: WebhookDescription.DomainName() + "-service". */
export const olmServiceName = (deploymentName: string) => `${deploymentName.replaceAll('.', '-')}-service`;

export interface OlmInstall {
  /** Every object OLM would create in the API server, in the order it creates them (the CRD's patch aside). */
  objects: any[];
  /** The conversion OLM writes into each CRD a ConversionWebhook names: a merge patch per CRD name. */
  conversionPatches: Map<string, unknown>;
  /** The Deployment's pod template with OLM's volumes and mounts added. */
  podTemplate: any;
  /** The serving pair OLM made, as files in folders standing for each of its volumes (mount path -> folder). */
  volumeFolders: Record<string, string>;
  ca: PemPair;
  /**
   * What OLM does when the pair nears its end: a new CA and pair, written into the volumes as the kubelet updates a
   * Secret's; the CA is returned for the caBundles OLM rewrites.
   */
  rotate: () => Promise<PemPair>;
}

/**
 * The objects OLM creates for `csv` installed into `namespace` by an OperatorGroup of all namespaces: ServiceAccounts
 * and RBAC from the permissions, for each Deployment with webhooks a Service, a CA and serving pair (a Secret) for
 * the Service's names, the Deployment with the Secret mounted twice, and a webhook configuration per admission
 * webhook definition; the serving pair is written under `dir` as the kubelet would mount it.
 */
export async function olmInstall(csv: ClusterServiceVersion, namespace: string, dir: string): Promise<OlmInstall> {
  const supportsOnly = csv.spec.installModes.filter((mode) => mode.supported).map((mode) => mode.type);
  if (supportsOnly.join() !== 'AllNamespaces')
    throw new Error(`this OLM stand-in installs AllNamespaces operators only; the CSV supports ${supportsOnly.join()}`);
  const strategy = csv.spec.install.spec;
  const webhooks = csv.spec.webhookdefinitions ?? [];
  const objects: any[] = [];
  const owner = {
    'olm.owner': csv.metadata.name,
    'olm.owner.kind': 'ClusterServiceVersion',
    'olm.owner.namespace': namespace,
  };
  const accounts = new Set(
    [...(strategy.permissions ?? []), ...(strategy.clusterPermissions ?? [])].map((entry) => entry.serviceAccountName),
  );
  for (const name of accounts)
    objects.push({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels: owner } });
  for (const [index, entry] of (strategy.permissions ?? []).entries()) {
    const name = `${csv.metadata.name}-${index}`;
    objects.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name, namespace, labels: owner },
        rules: entry.rules,
      },
      roleBinding('RoleBinding', name, entry.serviceAccountName, namespace, owner),
    );
  }
  for (const [index, entry] of (strategy.clusterPermissions ?? []).entries()) {
    const name = `${csv.metadata.name}-${index}`;
    objects.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name, labels: owner },
        rules: entry.rules,
      },
      roleBinding('ClusterRoleBinding', name, entry.serviceAccountName, namespace, owner),
    );
  }

  // certresources.go: one CA for the install, a serving pair per Deployment for its Service's two names.
  const deployments = strategy.deployments.filter((deployment) =>
    webhooks.some((webhook) => webhook.deploymentName === deployment.name),
  );
  if (deployments.length !== 1) throw new Error('this OLM stand-in serves the webhooks of exactly one Deployment');
  const deployment = deployments[0]!;
  const serviceName = olmServiceName(deployment.name);
  const { ca, serving } = servingPairFor(csv, serviceName, namespace);
  const ports = new Map<string, { name: string; port: number; targetPort: number | string }>();
  for (const webhook of webhooks.filter((each) => each.deploymentName === deployment.name)) {
    const port = webhook.containerPort ?? 443;
    const servicePort = { name: String(port), port, targetPort: webhook.targetPort ?? port };
    ports.set(JSON.stringify(servicePort), servicePort);
  }
  objects.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: serviceName, namespace, labels: owner },
    spec: { ports: [...ports.values()], selector: deployment.spec.selector.matchLabels },
  });
  const caHash = createHash('sha256').update(ca.certPem).digest('hex');
  const secretName = `${serviceName}-cert`;
  objects.push({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: secretName, namespace, annotations: { olmcahash: caHash }, labels: owner },
    data: {
      'tls.crt': Buffer.from(serving.certPem).toString('base64'),
      'tls.key': Buffer.from(serving.keyPem).toString('base64'),
    },
  });
  const podTemplate = structuredClone(deployment.spec.template);
  podTemplate.metadata = {
    ...podTemplate.metadata,
    annotations: { ...podTemplate.metadata?.annotations, olmcahash: caHash },
  };
  const volumeFolders: Record<string, string> = {};
  const mounted = [
    { ...olmCertMounts.apiService, files: { 'apiserver.crt': 'tls.crt', 'apiserver.key': 'tls.key' } },
    { ...olmCertMounts.webhook, files: { 'tls.crt': 'tls.crt', 'tls.key': 'tls.key' } },
  ] as const;
  for (const { volume, mountPath, files } of mounted) {
    const items = Object.entries(files).map(([path, key]) => ({ key, path }));
    podTemplate.spec.volumes = [
      ...(podTemplate.spec.volumes ?? []).filter((each: { name: string }) => each.name !== volume),
      { name: volume, secret: { secretName, items } },
    ];
    for (const container of podTemplate.spec.containers)
      if (
        !(container.volumeMounts ?? []).some(
          (mount: { name: string; mountPath: string }) => mount.name === volume || mount.mountPath === mountPath,
        )
      )
        container.volumeMounts = [...(container.volumeMounts ?? []), { name: volume, mountPath }];
    volumeFolders[mountPath] = join(dir, volume);
  }
  const writeVolumes = async (pair: PemPair) => {
    for (const { mountPath, files } of mounted) {
      const folder = volumeFolders[mountPath]!;
      await mkdir(folder, { recursive: true });
      // The key first: a server that reloads on the certificate's change finds the new key already there.
      for (const [path, key] of Object.entries(files).sort(([, a], [, b]) => b.localeCompare(a)))
        await writeFile(join(folder, path), key === 'tls.crt' ? pair.certPem : pair.keyPem);
    }
  };
  await writeVolumes(serving);
  objects.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: deployment.name, namespace, labels: { ...deployment.label, ...owner } },
    spec: { ...deployment.spec, template: podTemplate },
  });

  // webhook.go: a configuration per admission webhook definition, named by generateName; an OperatorGroup of all
  // namespaces selects every namespace (no namespaceSelector).
  const caBundle = Buffer.from(ca.certPem).toString('base64');
  const conversionPatches = new Map<string, unknown>();
  for (const webhook of webhooks) {
    const service = {
      name: olmServiceName(webhook.deploymentName),
      namespace,
      port: webhook.containerPort ?? 443,
    };
    if (webhook.type === 'ConversionWebhook') {
      for (const crd of webhook.conversionCRDs ?? []) {
        if (!(csv.spec.customresourcedefinitions?.owned ?? []).some((owned) => owned.name === crd))
          throw new Error(`csv ${csv.metadata.name} does not own CRD ${crd}`);
        conversionPatches.set(crd, {
          spec: {
            conversion: {
              strategy: 'Webhook',
              webhook: {
                clientConfig: { service: { ...service, path: webhook.webhookPath ?? '/' }, caBundle },
                conversionReviewVersions: webhook.admissionReviewVersions,
              },
            },
          },
        });
      }
      continue;
    }
    const mutating = webhook.type === 'MutatingAdmissionWebhook';
    objects.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata: {
        generateName: `${webhook.generateName}-`,
        labels: { ...owner, 'olm.webhook-description-generate-name': webhook.generateName, 'olm.managed': 'true' },
      },
      webhooks: [
        {
          name: webhook.generateName,
          rules: webhook.rules,
          failurePolicy: webhook.failurePolicy,
          matchPolicy: webhook.matchPolicy,
          objectSelector: webhook.objectSelector,
          sideEffects: webhook.sideEffects,
          timeoutSeconds: webhook.timeoutSeconds,
          admissionReviewVersions: webhook.admissionReviewVersions,
          clientConfig: {
            service: { ...service, ...(webhook.webhookPath ? { path: webhook.webhookPath } : {}) },
            caBundle,
          },
          ...(mutating && webhook.reinvocationPolicy ? { reinvocationPolicy: webhook.reinvocationPolicy } : {}),
        },
      ],
    });
  }
  return {
    objects,
    conversionPatches,
    podTemplate,
    volumeFolders,
    ca,
    rotate: async () => {
      const rotated = servingPairFor(csv, serviceName, namespace);
      await writeVolumes(rotated.serving);
      return rotated.ca;
    },
  };
}

/** A new CA and serving pair for the Service, as OLM makes them at install and again when it rotates them. */
function servingPairFor(csv: ClusterServiceVersion, serviceName: string, namespace: string) {
  const ca = createCertificateAuthority({ commonName: `olm-selfsigned-${csv.metadata.name}`, days: 730 });
  const serving = issueCertificate(ca, {
    commonName: `${serviceName}.${namespace}.svc`,
    dnsNames: [`${serviceName}.${namespace}`, `${serviceName}.${namespace}.svc`],
    usage: 'server',
    days: 730,
  });
  return { ca, serving };
}

function roleBinding(
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  account: string,
  namespace: string,
  labels: Record<string, string>,
) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name, ...(kind === 'RoleBinding' ? { namespace } : {}), labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
  };
}
