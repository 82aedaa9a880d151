import { serveDefaults } from '../../config.ts';
import { ownsCrd, type Contract } from '../../contract/contract-definition.ts';
import { renderCustomResourceDefinition } from '../custom-resource-definition.ts';
import { installNames } from '../in-cluster-names.ts';
import type { GeneratedFile, Manifest, ManifestFile } from '../manifest.ts';
import { renderManifestFiles } from '../manifest-files.ts';
import type { ManifestOptions } from '../manifest-options.ts';
import { withServingCertDir } from '../server-workload.ts';
import {
  conversionWebhookDescriptions,
  renderClusterServiceVersion,
  type BundleIdentity,
  type CsvPresentation,
  type Permission,
  type WebhookDescription,
} from './cluster-service-version.ts';
import { olmContainerPort, olmServiceName, olmServingCertDir } from './olm-install.ts';

export type { BundleIdentity, CsvPresentation } from './cluster-service-version.ts';

/** A registry+v1 bundle, and what it cannot say that the kustomize install of the same contracts says. */
export interface OlmBundle {
  files: GeneratedFile[];
  /** One line per thing the kustomize install has and the bundle has not, each with what to do instead. */
  losses: string[];
}

const bundleLabels = (identity: BundleIdentity): Record<string, string> => ({
  'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
  'operators.operatorframework.io.bundle.manifests.v1': 'manifests/',
  'operators.operatorframework.io.bundle.metadata.v1': 'metadata/',
  'operators.operatorframework.io.bundle.package.v1': identity.packageName,
  'operators.operatorframework.io.bundle.channels.v1': identity.channel,
  'operators.operatorframework.io.bundle.channel.default.v1': identity.channel,
});

/** Kinds a registry+v1 bundle may carry besides the CSV, CRDs and RBAC, which OLM creates in the install's namespace. */
const carriedKinds = new Set(['PodDisruptionBudget', 'NetworkPolicy']);

/**
 * The bundle of the install `crdgate manifests` renders, made from the same objects: the Deployment, its RBAC and the
 * webhooks go into the ClusterServiceVersion, the CRDs crdgate owns and the objects OLM can carry into manifests/.
 * OLM creates the Service, the serving pair (mounted where `serve --cert-dir` reads it), the webhook configurations
 * and the CRDs' conversion itself, from the CSV; the Namespace is the OperatorGroup's.
 */
export function renderOlmBundle(
  contracts: readonly Contract[],
  options: ManifestOptions,
  identity: BundleIdentity,
  crdgateVersion: string,
  presentation: CsvPresentation = {},
): OlmBundle {
  const names = installNames(options.name);
  const deploymentName = names.server;
  // The CRDs' conversion and the webhooks point at the Service OLM creates; OLM rewrites both as it installs.
  const rendered = renderManifestFiles(contracts, { ...options, ownerCrds: false });
  const base = rendered.filter((file) => file.path.startsWith('base/')).flatMap((file) => file.manifests);
  const losses: string[] = [];
  const byKind = (kind: string) => base.filter((manifest) => manifest.kind === kind);

  const deployment = byKind('Deployment').find((manifest) => manifest.metadata.name === deploymentName);
  if (deployment === undefined) throw new Error(`the install renders no Deployment ${deploymentName}`);
  const { permissions, clusterPermissions, unbound } = serverPermissions(base, names.server);
  const webhooks = [
    ...admissionWebhookDescriptions(byKind('ValidatingWebhookConfiguration'), deploymentName, losses),
    ...admissionWebhookDescriptions(byKind('MutatingWebhookConfiguration'), deploymentName, losses),
    ...conversionWebhookDescriptions(contracts, deploymentName),
  ];
  const csv = renderClusterServiceVersion({
    identity,
    contracts,
    image: options.image,
    deployment: withServingCertDir(deployment, olmServingCertDir),
    // OLM creates the ServiceAccounts its permissions name: the server's is named even when it needs no rule.
    permissions: permissions.length > 0 ? permissions : [{ serviceAccountName: names.server, rules: [] }],
    clusterPermissions,
    webhooks,
    crdgateVersion,
    presentation,
  });
  const endpoint = {
    target: { service: { namespace: options.namespace, name: olmServiceName(deploymentName), port: olmContainerPort } },
  };
  const crds = contracts.filter(ownsCrd).map((contract) => renderCustomResourceDefinition(contract, endpoint));
  const carried = [...base.filter((manifest) => carriedKinds.has(manifest.kind)), ...unbound];
  const dropped = new Set(['Namespace', 'ServiceAccount', 'Service', 'Deployment', 'CustomResourceDefinition']);
  for (const manifest of base)
    if (
      !dropped.has(manifest.kind) &&
      !carriedKinds.has(manifest.kind) &&
      !isRbac(manifest) &&
      !isWebhookConfiguration(manifest)
    )
      losses.push(`${manifest.kind} ${manifest.metadata.name}: a registry+v1 bundle cannot carry it`);
  losses.push(...installLosses(rendered, options));
  return {
    files: [
      manifestFile(`manifests/${identity.packageName}.clusterserviceversion.yaml`, csv),
      ...crds.map((crd) => manifestFile(`manifests/${crd.metadata.name}.customresourcedefinition.yaml`, crd)),
      ...carried.map((manifest) =>
        manifestFile(
          `manifests/${manifest.metadata.name}.${manifest.kind.toLowerCase()}.yaml`,
          withoutNamespace(manifest),
        ),
      ),
      manifestFile('metadata/annotations.yaml', {
        // Not a Kubernetes object: annotations.yaml is the bundle's metadata, read by opm and OLM.
        annotations: bundleLabels(identity),
      } as unknown as Manifest),
      { path: 'bundle.Dockerfile', text: bundleDockerfile(identity) },
    ],
    losses,
  };
}

function manifestFile(path: string, manifest: Manifest): ManifestFile {
  return { path, manifests: [manifest] };
}

/**
 * The rules of the roles bound to the server's ServiceAccount, which a CSV grants as its (cluster) permissions; a
 * ClusterRole bound to no one (the reads `crdgate check --from-cluster` is given) is carried as it is.
 */
function serverPermissions(
  base: readonly Manifest[],
  serviceAccount: string,
): { permissions: Permission[]; clusterPermissions: Permission[]; unbound: Manifest[] } {
  const rulesOf = (kind: string, name: string) =>
    (base.find((manifest) => manifest.kind === kind && manifest.metadata.name === name)?.['rules'] as unknown[]) ?? [];
  const boundRules = (bindingKind: string, roleKind: string) =>
    base
      .filter((manifest) => manifest.kind === bindingKind && bindsTo(manifest, serviceAccount))
      .flatMap((binding) => rulesOf(roleKind, (binding['roleRef'] as { name: string }).name));
  const permission = (rules: unknown[]): Permission[] =>
    rules.length > 0 ? [{ serviceAccountName: serviceAccount, rules }] : [];
  return {
    permissions: permission(boundRules('RoleBinding', 'Role')),
    clusterPermissions: permission(boundRules('ClusterRoleBinding', 'ClusterRole')),
    unbound: base.filter((manifest) => manifest.kind === 'ClusterRole' && !isBound(manifest, base)),
  };
}

function bindsTo(binding: Manifest, serviceAccount: string): boolean {
  const subjects = (binding['subjects'] as Array<{ kind: string; name: string }> | undefined) ?? [];
  return subjects.some((subject) => subject.kind === 'ServiceAccount' && subject.name === serviceAccount);
}

function isBound(role: Manifest, base: readonly Manifest[]): boolean {
  return base.some(
    (manifest) =>
      (manifest.kind === 'ClusterRoleBinding' || manifest.kind === 'RoleBinding') &&
      (manifest['roleRef'] as { kind: string; name: string }).kind === role.kind &&
      (manifest['roleRef'] as { name: string }).name === role.metadata.name,
  );
}

function isRbac(manifest: Manifest): boolean {
  return manifest.apiVersion.startsWith('rbac.authorization.k8s.io/');
}

function isWebhookConfiguration(manifest: Manifest): boolean {
  return manifest.kind === 'ValidatingWebhookConfiguration' || manifest.kind === 'MutatingWebhookConfiguration';
}

/**
 * Each webhook of a rendered configuration as a CSV's webhook definition. What a definition has no field for is
 * said: OLM sets the namespaceSelector from the OperatorGroup, and a definition has no matchConditions, so every
 * request of the rules reaches crdgate (the same decisions: what the conditions skip, crdgate allows).
 */
function admissionWebhookDescriptions(
  configurations: readonly Manifest[],
  deploymentName: string,
  losses: string[],
): WebhookDescription[] {
  return configurations.flatMap((configuration) =>
    (configuration['webhooks'] as Array<Record<string, unknown>>).map((webhook) => {
      const name = webhook['name'] as string;
      if (webhook['matchConditions'] !== undefined)
        losses.push(
          `webhook ${name}: no matchConditions (a CSV has no field for them): every request its rules match reaches crdgate` +
            (webhook['failurePolicy'] === 'Fail'
              ? ', so while crdgate is down its failurePolicy Fail refuses them all, not only those crdgate could refuse'
              : ', which costs calls only: its failurePolicy Ignore lets them through while crdgate is down'),
        );
      if (webhook['namespaceSelector'] !== undefined)
        losses.push(
          `webhook ${name}: --namespace-selector is dropped: OLM sets the namespaceSelector from the OperatorGroup`,
        );
      const clientConfig = webhook['clientConfig'] as { service: { path: string } };
      return {
        type:
          configuration.kind === 'ValidatingWebhookConfiguration'
            ? 'ValidatingAdmissionWebhook'
            : 'MutatingAdmissionWebhook',
        generateName: name,
        deploymentName,
        containerPort: olmContainerPort,
        targetPort: serveDefaults.port,
        admissionReviewVersions: webhook['admissionReviewVersions'] as string[],
        sideEffects: 'None',
        webhookPath: clientConfig.service.path,
        rules: webhook['rules'],
        failurePolicy: webhook['failurePolicy'],
        matchPolicy: webhook['matchPolicy'],
        timeoutSeconds: webhook['timeoutSeconds'],
        ...(webhook['objectSelector'] !== undefined ? { objectSelector: webhook['objectSelector'] } : {}),
        ...(webhook['reinvocationPolicy'] !== undefined ? { reinvocationPolicy: webhook['reinvocationPolicy'] } : {}),
      } satisfies WebhookDescription;
    }),
  );
}

/** What the kustomize install's other parts do that no bundle does, and what to do instead. */
function installLosses(rendered: readonly ManifestFile[], options: ManifestOptions): string[] {
  const losses = [
    `the Namespace ${options.namespace} and its restricted Pod Security labels: OLM installs into the OperatorGroup's namespace; label it pod-security.kubernetes.io/enforce=restricted yourself`,
    "the overlays of the kustomize tree (monitoring's ServiceMonitor and dashboard; the policy floor's admission policies, where the contracts compile any): a bundle cannot carry them; render the tree with --format kustomize and apply what you want of them beside the bundle",
  ];
  if (rendered.some((file) => file.path.startsWith('migration/')))
    losses.push(
      'the storage-version migration Job: a bundle cannot carry a Job; after an upgrade that changes a storage version, run crdgate migrate (or the Job of --format kustomize) before the next one drops the old version',
    );
  return losses;
}

/** OLM creates a bundle's objects in the namespace it installs into: a bundle names none. */
function withoutNamespace(manifest: Manifest): Manifest {
  const { namespace: _namespace, ...metadata } = manifest.metadata;
  return { ...manifest, metadata };
}

/** The bundle image: the folder as it is, labelled as its annotations.yaml says (opm and OLM read either). */
function bundleDockerfile(identity: BundleIdentity): string {
  const labels = Object.entries(bundleLabels(identity))
    .map(([key, value]) => `LABEL ${key}=${value}\n`)
    .join('');
  return `# Generated by \`crdgate manifests --format olm\`: build it in this folder.\nFROM scratch\n\n${labels}\nCOPY manifests /manifests/\nCOPY metadata /metadata/\n`;
}
