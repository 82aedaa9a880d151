import type { Contract } from '../../contract/contract-definition.ts';
import { generatedMarker } from '../manifest-yaml.ts';
import type { GeneratedFile, ManifestFile } from '../manifest.ts';
import { renderManifestTree } from '../manifest-files.ts';
import type { ManifestOptions } from '../manifest-options.ts';
import { hasMutatingWebhooks } from '../webhook-configurations.ts';
import { chartNotes } from './chart-notes.ts';
import { chartTemplates, dashboardFolder, releaseNamespaceMark } from './chart-templates.ts';
import { chartValues, valuesSchema, valuesYaml, type ChartValueDefaults } from './chart-values.ts';

/** What only the chart has: its version, and the crdgate that rendered it. */
export interface ChartOptions {
  /** The chart's version: crdgate's own, so a chart says which crdgate rendered it. */
  version: string;
}

const header = `${generatedMarker} change the contract (or the flags) and generate again.\n`;

/**
 * A Helm chart of the install `crdgate manifests --out` writes as a kustomize tree, made from the same rendered
 * files: the base and every overlay become templates and values. The chart installs into the release's namespace
 * (helm install -n NS --create-namespace); the install's name stays the one it was rendered with (--name), since it
 * names cluster-scoped objects and the webhooks.
 */
export function renderHelmChart(
  contracts: readonly Contract[],
  options: ManifestOptions,
  chart: ChartOptions,
): GeneratedFile[] {
  if (options.url !== undefined) throw new Error('a chart installs crdgate inside the cluster: it has no --url');
  if (options.caBundlePem !== undefined)
    throw new Error('a chart takes the CA bundle as the value certificates.caBundle, not --ca-bundle');
  const tree = renderManifestTree(contracts, { ...options, namespace: releaseNamespaceMark });
  const manifestFiles = tree.filter((file): file is ManifestFile => 'manifests' in file);
  const image = imageParts(options.image);
  const values = chartValues(valueDefaults(manifestFiles, image, options));
  const dashboards = tree
    .filter((file) => 'json' in file)
    .map((file) => ({
      path: `${dashboardFolder}/${file.path.split('/').pop()!}`,
      json: (file as { json: unknown }).json,
    }));
  return [
    { path: 'Chart.yaml', text: chartYaml(options.name, chart.version, image.tag || chart.version, contracts) },
    { path: 'values.yaml', text: `${header}${valuesYaml(values)}` },
    { path: 'values.schema.json', json: valuesSchema(values) },
    { path: 'templates/_helpers.tpl', text: helpers },
    {
      path: 'templates/NOTES.txt',
      text: chartNotes(
        options.name,
        contracts.map((contract) => `${contract.identity.kind}.${contract.identity.group}`),
        { ownedCrds: values.keys['crds'] !== undefined, mutatingWebhooks: hasMutatingWebhooks(contracts) },
      ),
    },
    ...chartTemplates(manifestFiles).map((template) => ({
      path: `templates/${template.name}`,
      text: `${header}${template.text}`,
    })),
    ...dashboards,
  ];
}

function chartYaml(name: string, version: string, appVersion: string, contracts: readonly Contract[]): string {
  const kinds = contracts.map((contract) => `${contract.identity.plural}.${contract.identity.group}`).join(', ');
  return `${header}apiVersion: v2
name: ${name}
description: crdgate, the admission and conversion webhooks of ${kinds}
type: application
version: ${version}
appVersion: ${JSON.stringify(appVersion)}
keywords: [crdgate, admission-webhook, conversion-webhook, crd]
`;
}

const helpers = `${header}{{/* The image: by digest when one is given, else by tag (the chart's appVersion when empty). */}}
{{- define "crdgate.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}
`;

/** An image reference split as the values hold it: repository, tag and digest. */
export function imageParts(image: string): { repository: string; tag: string; digest: string } {
  const [named = '', digest = ''] = image.split('@');
  const lastSlash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  // A colon before the last slash is a registry's port, not a tag.
  if (colon > lastSlash) return { repository: named.slice(0, colon), tag: named.slice(colon + 1), digest };
  return { repository: named, tag: '', digest };
}

function valueDefaults(
  files: readonly ManifestFile[],
  image: ChartValueDefaults['image'],
  options: ManifestOptions,
): ChartValueDefaults {
  const server = files.find((file) => file.path === 'base/10-crdgate-server.yaml')?.manifests ?? [];
  const deployment = server.find((object) => object.kind === 'Deployment');
  const disruptionBudget = server.find((object) => object.kind === 'PodDisruptionBudget');
  const spec = deployment?.['spec'] as {
    replicas: number;
    template: { spec: { topologySpreadConstraints: unknown; containers: Array<{ resources: unknown }> } };
  };
  return {
    image,
    replicas: spec.replicas,
    resources: spec.template.spec.containers[0]?.resources,
    topologySpreadConstraints: spec.template.spec.topologySpreadConstraints,
    minAvailable: (disruptionBudget?.['spec'] as { minAvailable: number }).minAvailable,
    // What the kustomize tree offers, the chart offers: the overlay when some contract has policies, the migration
    // when some CRD is crdgate's.
    policyFloor: files.some((file) => file.path.startsWith('overlays/policy-floor/')),
    crds: files.some((file) => file.path.startsWith('base/20-crd-')),
    migration: files.some((file) => file.path.startsWith('migration/')),
    webhooks: options.webhooks ?? {},
  };
}
