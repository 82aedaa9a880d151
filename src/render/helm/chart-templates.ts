import type { Manifest, ManifestFile } from '../manifest.ts';
import { migrationDryRunResources, migrationResources } from '../storage-migration.ts';
import { choice, fromValues, lines, mapWithValues, scalar, templateText } from './template-slots.ts';

// The chart's templates, made from the files `crdgate manifests --out` writes for the same contracts and flags: the
// base, each overlay's objects and patches, the migration. What an overlay patches becomes a value's condition at the
// patched field; every object is crdgate's own rendering.

/** The namespace the objects are rendered in, which every template replaces with the release's. */
export const releaseNamespaceMark = 'crdgate-chart-release-namespace';

const selfManaged = 'eq .Values.certificates.mode "self-managed"';
const certManager = 'eq .Values.certificates.mode "cert-manager"';
const givenCaBundle = 'and (eq .Values.certificates.mode "secret") .Values.certificates.caBundle';

export interface ChartTemplate {
  /** Under templates/. */
  name: string;
  text: string;
}

/** The rendered tree, by path: the objects of each file, and the files of one folder. */
class RenderedTree {
  private readonly files: ReadonlyMap<string, ManifestFile>;
  constructor(files: readonly ManifestFile[]) {
    this.files = new Map(files.map((file) => [file.path, file]));
  }
  objects(path: string): Manifest[] {
    return structuredClone(this.files.get(path)?.manifests ?? []);
  }
  under(prefix: string): ManifestFile[] {
    return [...this.files.values()].filter((file) => file.path.startsWith(prefix));
  }
  one(path: string, kind: string): Manifest | undefined {
    return this.objects(path).find((object) => object.kind === kind);
  }
}

export function chartTemplates(files: readonly ManifestFile[]): ChartTemplate[] {
  const tree = new RenderedTree(files);
  const templates: ChartTemplate[] = [
    { name: 'server.yaml', text: serverTemplate(tree) },
    { name: 'network-policy.yaml', text: networkPolicyTemplate(tree) },
    {
      name: 'server-reads.yaml',
      text: templateText([
        ...tree.objects('base/12-scale-reads.yaml'),
        ...tree.objects('base/13-owner-crd-reads.yaml'),
      ]),
    },
    { name: 'crds.yaml', text: crdsTemplate(tree) },
    { name: 'webhook-configurations.yaml', text: webhooksTemplate(tree) },
    {
      name: 'self-managed-certs.yaml',
      text: when(
        selfManaged,
        templateText([
          ...tree.objects('overlays/self-managed-certs/secret-and-lease.yaml'),
          ...tree.objects('overlays/self-managed-certs/rbac.yaml'),
        ]),
      ),
    },
    {
      name: 'cert-manager.yaml',
      text: when(certManager, templateText(tree.objects('overlays/cert-manager/certificates.yaml'))),
    },
    {
      name: 'policy-floor.yaml',
      text: when(
        '.Values.policyFloor.enabled',
        templateText(tree.objects('overlays/policy-floor/admission-policies.yaml')),
      ),
    },
    { name: 'monitoring.yaml', text: monitoringTemplate(tree) },
    {
      name: 'migration.yaml',
      text: when(
        '.Values.migration.enabled',
        templateText(tree.objects('migration/storage-migration.yaml').map(migrationObject)),
      ),
    },
  ];
  return templates
    .filter((template) => template.text.trim() !== '' && !/^\{\{- if [^}]*\}\}\n\{\{- end \}\}\n$/.test(template.text))
    .map((template) => ({
      ...template,
      text: template.text.replaceAll(releaseNamespaceMark, '{{ .Release.Namespace }}'),
    }));
}

/** Documents rendered only under a condition; each template's documents start with a separator of their own. */
function when(condition: string, text: string): string {
  return text.trim() === '' ? '' : `{{- if ${condition} }}\n---\n${text}{{- end }}\n`;
}

function serverTemplate(tree: RenderedTree): string {
  const [serviceAccount, service, deployment, disruptionBudget] = tree.objects('base/10-crdgate-server.yaml');
  if (
    serviceAccount === undefined ||
    service === undefined ||
    deployment === undefined ||
    disruptionBudget === undefined
  )
    return '';
  const servePatch = tree.one('overlays/self-managed-certs/serve-manage-certs.yaml', 'Deployment');
  const patchedPod = (servePatch?.['spec'] as PodTemplateOwner | undefined)?.template.spec;
  const patchedContainer = patchedPod?.containers[0];

  const spec = deployment['spec'] as PodTemplateOwner & Record<string, unknown>;
  spec['replicas'] = scalar('.Values.replicas');
  const pod = spec.template.spec;
  const podLabels = spec.template.metadata['labels'] as Record<string, string>;
  spec.template.metadata = {
    annotations: fromValues('.Values.podAnnotations'),
    labels: mapWithValues(podLabels, '.Values.podLabels'),
  };
  if (pod['automountServiceAccountToken'] !== true)
    pod['automountServiceAccountToken'] = choice(selfManaged, true, pod['automountServiceAccountToken']);
  for (const key of [
    'imagePullSecrets',
    'nodeSelector',
    'affinity',
    'tolerations',
    'topologySpreadConstraints',
    'priorityClassName',
  ])
    pod[key] = fromValues(`.Values.${key}`);
  pod['volumes'] = choice(selfManaged, [], pod['volumes']);
  const [container] = pod.containers;
  if (container === undefined || patchedContainer === undefined)
    throw new Error('the rendered Deployment and the self-managed-certs overlay must each have the server container');
  const baseArgs = container['args'] as string[];
  const manageCertsArgs = patchedContainer['args'] as string[];
  container['image'] = scalar('include "crdgate.image" . | quote');
  container['imagePullPolicy'] = fromValues('.Values.image.pullPolicy');
  container['args'] = lines((key, yaml) => [
    `{{- if ${selfManaged} }}`,
    ...yaml({ [key]: manageCertsArgs }),
    '{{- else }}',
    ...yaml({ [key]: baseArgs }),
    '{{- end }}',
    // crdgate's default level adds nothing to the arguments, as the kustomize tree has none.
    '{{- if ne .Values.logLevel "info" }}',
    ...yaml({ [key]: ['--log-level', scalar('.Values.logLevel | quote')] }).slice(1),
    '{{- end }}',
  ]);
  const env = container['env'] as Array<{ name: string }>;
  // What kustomize's strategic merge makes of the overlay's patch: the patch's env entries first, then the base's
  // others; the deleted mount and volume leave empty lists.
  const patchEnv = patchedContainer['env'] ?? [];
  const patchedEnv = [...patchEnv, ...env.filter((entry) => !patchEnv.some((each) => each.name === entry.name))];
  (container as Record<string, unknown>)['env'] = choice(selfManaged, patchedEnv, env);
  container['resources'] = fromValues('.Values.resources');
  container['volumeMounts'] = choice(selfManaged, [], container['volumeMounts']);
  const minAvailable = disruptionBudget['spec'] as Record<string, unknown>;
  minAvailable['minAvailable'] = scalar('.Values.podDisruptionBudget.minAvailable');
  return `${templateText([serviceAccount, service, deployment])}${when('.Values.podDisruptionBudget.enabled', templateText([disruptionBudget]))}`;
}

interface PodTemplateOwner {
  template: {
    metadata: Record<string, unknown>;
    spec: Record<string, unknown> & { containers: Array<Record<string, unknown> & { env?: Array<{ name: string }> }> };
  };
}

function networkPolicyTemplate(tree: RenderedTree): string {
  const policy = tree.one('base/15-network-policy.yaml', 'NetworkPolicy');
  if (policy === undefined) return '';
  const egressPatch = tree.one('overlays/self-managed-certs/egress-to-api-server.yaml', 'NetworkPolicy');
  const spec = policy['spec'] as Record<string, unknown>;
  const patchedEgress = (egressPatch?.['spec'] as Record<string, unknown> | undefined)?.['egress'];
  if (patchedEgress !== undefined) spec['egress'] = choice(selfManaged, patchedEgress, spec['egress']);
  return when('.Values.networkPolicy.enabled', templateText([policy]));
}

/** The annotations that the cert-manager overlay patches onto an object, by kind and name. */
function certManagerAnnotations(tree: RenderedTree, object: Manifest): Record<string, string> | undefined {
  return tree
    .objects('overlays/cert-manager/inject-ca.yaml')
    .find((patch) => patch.kind === object.kind && patch.metadata.name === object.metadata.name)?.metadata.annotations;
}

/** metadata.annotations: those it has, cert-manager's injection when certificates come from it, and keep for a CRD. */
function annotationsSlot(
  existing: Record<string, string> | undefined,
  injected: Record<string, string> | undefined,
  keep?: string,
) {
  const conditional: Array<[string, Record<string, string>]> = [
    ...(injected !== undefined ? [[certManager, injected] as [string, Record<string, string>]] : []),
    ...(keep !== undefined ? [[keep, { 'helm.sh/resource-policy': 'keep' }] as [string, Record<string, string>]] : []),
  ];
  if (conditional.length === 0) return existing;
  const always = existing !== undefined && Object.keys(existing).length > 0;
  const anyOf =
    conditional.length === 1
      ? conditional[0]![0]
      : `or ${conditional.map(([condition]) => `(${condition})`).join(' ')}`;
  return lines((key, yaml) => {
    const entries = (map: Record<string, string>) => yaml(map).map((line) => `  ${line}`);
    // Under a single condition that already holds, its entries need no condition of their own.
    const alone = !always && conditional.length === 1;
    const body = [
      `${key}:`,
      ...(always ? entries(existing) : []),
      ...conditional.flatMap(([condition, map]) =>
        alone ? entries(map) : [`  {{- if ${condition} }}`, ...entries(map), '  {{- end }}'],
      ),
    ];
    return always ? body : [`{{- if ${anyOf} }}`, ...body, '{{- end }}'];
  });
}

/** A clientConfig gets the given CA where certificates come from a Secret of the user's. */
function withCaBundle(clientConfig: Record<string, unknown>): void {
  if (clientConfig['caBundle'] === undefined)
    clientConfig['caBundle'] = choice(givenCaBundle, scalar('.Values.certificates.caBundle | b64enc'), undefined);
}

function crdsTemplate(tree: RenderedTree): string {
  const crds = tree.under('base/20-crd-').flatMap((file) => file.manifests.map((crd) => structuredClone(crd)));
  for (const crd of crds) {
    crd.metadata.annotations = annotationsSlot(
      crd.metadata.annotations,
      certManagerAnnotations(tree, crd),
      '.Values.crds.keep',
    ) as Record<string, string>;
    const conversion = (crd['spec'] as Record<string, { webhook?: { clientConfig?: Record<string, unknown> } }>)[
      'conversion'
    ];
    if (conversion?.webhook?.clientConfig !== undefined) withCaBundle(conversion.webhook.clientConfig);
  }
  return when('.Values.crds.enabled', templateText(crds));
}

function webhooksTemplate(tree: RenderedTree): string {
  const configurations = tree.objects('base/30-webhook-configurations.yaml');
  const ignoredUnderFloor = new Set(
    tree
      .objects('overlays/policy-floor/ignore-webhook-failures.yaml')
      .flatMap((patch) =>
        (patch['webhooks'] as Array<{ name: string }>).map((webhook) => `${patch.kind}/${webhook.name}`),
      ),
  );
  for (const configuration of configurations) {
    configuration.metadata.annotations = annotationsSlot(
      configuration.metadata.annotations,
      certManagerAnnotations(tree, configuration),
    ) as Record<string, string>;
    for (const webhook of configuration['webhooks'] as Array<Record<string, unknown>>) {
      withCaBundle(webhook['clientConfig'] as Record<string, unknown>);
      webhook['namespaceSelector'] ??= fromValues('.Values.webhooks.namespaceSelector');
      webhook['objectSelector'] ??= fromValues('.Values.webhooks.objectSelector');
      // A webhook that can only warn is Ignore with the shortest timeout whatever the settings (failureHandling).
      if (webhook['failurePolicy'] === 'Ignore') continue;
      webhook['timeoutSeconds'] = scalar('.Values.webhooks.timeoutSeconds');
      webhook['failurePolicy'] = ignoredUnderFloor.has(`${configuration.kind}/${webhook['name'] as string}`)
        ? scalar('ternary "Ignore" .Values.webhooks.failurePolicy .Values.policyFloor.enabled')
        : scalar('.Values.webhooks.failurePolicy');
    }
  }
  return `${ignoredUnderFloor.size > 0 ? untrustedFloorGuard : ''}${templateText(configurations)}`;
}

// The policy-floor overlay builds only on what gives the webhooks a caBundle; the chart refuses the one setting that
// gives them none, since under Ignore the API server skips a webhook it cannot trust without a word.
const untrustedFloorGuard = `{{- if and .Values.policyFloor.enabled (eq .Values.certificates.mode "secret") (not .Values.certificates.caBundle) }}
{{- fail "policyFloor.enabled with certificates.mode secret needs certificates.caBundle: at failurePolicy Ignore, the API server would skip every webhook it cannot trust, in silence" }}
{{- end }}
`;

function monitoringTemplate(tree: RenderedTree): string {
  const serviceMonitors = tree.objects('overlays/monitoring/service-monitor.yaml');
  const kustomization = tree.one('overlays/monitoring/kustomization.yaml', 'Kustomization');
  const generator = (kustomization?.['configMapGenerator'] as DashboardGenerator[] | undefined)?.[0];
  const dashboard: Manifest[] =
    generator === undefined
      ? []
      : [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: generator.name, namespace: generator.namespace, labels: generator.options.labels },
            data: Object.fromEntries(
              generator.files.map((file) => [
                file,
                scalar(`.Files.Get ${JSON.stringify(`${dashboardFolder}/${file}`)} | toJson`),
              ]),
            ),
          },
        ];
  return `${when('.Values.monitoring.serviceMonitor.enabled', templateText(serviceMonitors))}${when('.Values.monitoring.dashboard.enabled', templateText(dashboard))}`;
}

/** Where the chart keeps the dashboard JSON, outside templates/. */
export const dashboardFolder = 'files';

interface DashboardGenerator {
  name: string;
  namespace: string;
  files: string[];
  options: { labels: Record<string, string> };
}

/**
 * A migration Job runs after the upgrade that turns it on, and is replaced when one runs again (a Job's template
 * cannot change); its identity, RBAC and flow control are ordinary objects of the release.
 */
function migrationObject(object: Manifest): Manifest {
  if (object.kind !== 'Job') return object;
  object.metadata.annotations = {
    ...object.metadata.annotations,
    'helm.sh/hook': 'post-install,post-upgrade',
    'helm.sh/hook-delete-policy': 'before-hook-creation',
  };
  const pod = (object['spec'] as PodTemplateOwner).template.spec;
  pod['imagePullSecrets'] = fromValues('.Values.imagePullSecrets');
  for (const container of pod.containers) {
    container['image'] = scalar('include "crdgate.image" . | quote');
    container['imagePullPolicy'] = fromValues('.Values.image.pullPolicy');
    const args = container['args'] as string[];
    container['args'] = lines((key, yaml) => [
      ...yaml({ [key]: args }),
      '{{- if .Values.migration.dryRun }}',
      '  - --dry-run',
      '{{- end }}',
    ]);
    // A dry run loads the API server engine as well (storage-migration.ts): more memory than the real run's.
    container['resources'] = choice('.Values.migration.dryRun', migrationDryRunResources, migrationResources);
  }
  return object;
}
