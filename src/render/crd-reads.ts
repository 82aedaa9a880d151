import { isDns1123Label, isDns1123Subdomain } from '../contract/values/dns-names.ts';
import { componentLabels, installNames, type Install } from './in-cluster-names.ts';
import type { ManifestFile } from './manifest.ts';

// What reading a revision's live objects takes: get on the CRDs by name (their status.storedVersions counts) and
// list on each one's custom resource across namespaces. Nothing else: no watch, no write, no other resource.

/** A CRD named on the command line (`PLURAL.GROUP`): its resource, or why the name is not one. */
export function crdResourceOf(crdName: string): { plural: string; group: string } | { problem: string } {
  const dot = crdName.indexOf('.');
  const plural = crdName.slice(0, dot);
  const group = crdName.slice(dot + 1);
  if (dot <= 0 || !isDns1123Label(plural) || !group.includes('.') || !isDns1123Subdomain(group)) {
    return {
      problem: `"${crdName}" is not a CustomResourceDefinition's name (PLURAL.GROUP, such as widgets.example.com: the plural a DNS-1123 label, the group a DNS subdomain with a dot)`,
    };
  }
  return { plural, group };
}

/** The ClusterRole rules that read these CRDs (already checked names) and their objects, and nothing else. */
export function crdReadRules(crdNames: readonly string[]): Record<string, unknown>[] {
  return [
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: [...new Set(crdNames)],
      verbs: ['get'],
    },
    ...liveObjectListRules(crdNames),
  ];
}

/** The rules that list the objects of these CRDs (already checked names) in every namespace. */
export function liveObjectListRules(crdNames: readonly string[]): Record<string, unknown>[] {
  const byGroup = new Map<string, string[]>();
  for (const name of crdNames) {
    const resource = crdResourceOf(name);
    if ('problem' in resource) throw new Error(resource.problem);
    byGroup.set(resource.group, [...new Set([...(byGroup.get(resource.group) ?? []), resource.plural])]);
  }
  return [...byGroup].map(([group, plurals]) => ({ apiGroups: [group], resources: plurals, verbs: ['list'] }));
}

const comment = (
  names: readonly string[],
  role: string,
) => `What \`crdgate check --from-cluster\` reads of ${names.join(', ')}: each CRD by name (get), and its objects across
namespaces (list, a page at a time). No watch, no write. Bound to nobody: bind it to the identity your pipeline reads
the cluster with, e.g. kubectl create clusterrolebinding ci-${role} --clusterrole=${role} --serviceaccount=NS:NAME`;

/** The ClusterRole of --crd-reads; nothing without names. */
export function renderCrdReadsFile(path: string, crdNames: readonly string[], install: Install): ManifestFile[] {
  if (crdNames.length === 0) return [];
  const role = installNames(install.name).crdReads;
  return [
    {
      path,
      comment: comment(crdNames, role),
      manifests: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: role, labels: componentLabels(install.name, 'check') },
          rules: crdReadRules(crdNames),
        },
      ],
    },
  ];
}
