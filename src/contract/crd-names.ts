import { annotationsSize, maxAnnotationsBytes } from './annotations-size.ts';
import {
  dnsNameRules,
  dns1123SubdomainMaxLength,
  isDns1035Label,
  isDns1123Subdomain,
  isQualifiedName,
  qualifiedNameRule,
} from './values/dns-names.ts';

/** The CRD annotation that lets a CRD into Kubernetes' own groups (k8s.io, kubernetes.io): the API review's approval. */
export const apiApprovalAnnotation = 'api-approved.kubernetes.io';

/** The names of a contract that end up in its CRD. */
export interface CrdNames {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  listKind?: string | undefined;
  shortNames?: readonly string[] | undefined;
  categories?: readonly string[] | undefined;
}

const upperCamelCase = /^[A-Z][A-Za-z0-9]*$/;

/**
 * The problems kube-apiserver would find with these names in a CRD (k8s.io/apiextensions-apiserver's validation),
 * each naming its field, so that a contract that loads renders a CRD the API server accepts: version names and
 * resource names are DNS-1035 labels, kinds are too when lowercased (crdgate asks UpperCamelCase of the kind), the
 * group is a DNS-1123 subdomain with a dot, outside Kubernetes' own groups unless the CRD's annotations carry the
 * API review's approval (as the Gateway API's do), and the CRD's name `plural.group` fits an object name.
 */
export function crdNameProblems(
  names: CrdNames,
  versionNames: readonly string[],
  crdAnnotations?: Readonly<Record<string, string>>,
): string[] {
  const problems: string[] = [];
  const { group, kind, plural, singular } = names;
  if (!isDns1123Subdomain(group) || !group.includes('.')) {
    problems.push(`group "${group}" must be ${dnsNameRules.dns1123Subdomain}, with at least one dot`);
  } else if (isKubernetesGroup(group)) {
    const approval = apiApprovalProblem(crdAnnotations?.[apiApprovalAnnotation]);
    if (approval !== undefined) {
      problems.push(
        `group "${group}" is Kubernetes' own (k8s.io, kubernetes.io): the API server wants an API review's approval for it, ` +
          `in the CRD annotation ${apiApprovalAnnotation} (crdAnnotations): ${approval}`,
      );
    }
  }
  if (!upperCamelCase.test(kind) || kind.length > 63)
    problems.push(`kind "${kind}" must be UpperCamelCase, at most 63 characters`);
  for (const [field, name] of [
    ['plural', plural],
    ['singular', singular],
  ] as const) {
    if (!isDns1035Label(name)) problems.push(`${field} "${name}" must be ${dnsNameRules.dns1035Label}`);
  }
  const crdName = `${plural}.${group}`;
  if (crdName.length > dns1123SubdomainMaxLength) {
    problems.push(
      `plural and group make the CRD's name "${crdName}" longer than ${dns1123SubdomainMaxLength} characters`,
    );
  }
  const listKind = names.listKind ?? `${kind}List`;
  if (!/^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/.test(listKind) || listKind.length > 63) {
    const which = names.listKind === undefined ? `the list kind "${listKind}" (kind + List)` : `listKind "${listKind}"`;
    problems.push(`${which} must be letters, digits and '-', starting with a letter, at most 63 characters`);
  } else if (listKind === kind) {
    problems.push(`listKind "${listKind}" must differ from the kind`);
  }
  for (const [field, list] of [
    ['shortNames', names.shortNames],
    ['categories', names.categories],
  ] as const) {
    for (const name of list ?? []) {
      if (!isDns1035Label(name)) problems.push(`${field} entry "${name}" must be ${dnsNameRules.dns1035Label}`);
    }
  }
  for (const name of versionNames) {
    if (!isDns1035Label(name)) problems.push(`version name "${name}" must be ${dnsNameRules.dns1035Label}`);
  }
  return problems;
}

/**
 * What the API server says of a protected group's approval annotation (apiextensions-apiserver's
 * GetAPIApprovalState): undefined when it is a URL (approved) or starts with "unapproved" (let through on purpose).
 */
function apiApprovalProblem(value: string | undefined): string | undefined {
  const at = `metadata.annotations[${apiApprovalAnnotation}]`;
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (value === undefined || value === '')
    return `${at}: Required value: protected groups must have approval annotation "${apiApprovalAnnotation}", ${see}`;
  if (value.startsWith('unapproved') || isAbsoluteUrl(value)) return undefined;
  return (
    `${at}: Invalid value: ${JSON.stringify(value)}: protected groups must have approval annotation "${apiApprovalAnnotation}" ` +
    `with either a URL or a reason starting with "unapproved", ${see}`
  );
}

/** A URL with a scheme and a host, as Go's url.ParseRequestURI reads one. */
function isAbsoluteUrl(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]/.test(value) || /\s/.test(value)) return false;
  try {
    return new URL(value).host !== '';
  } catch {
    return false;
  }
}

/** What the API server checks of a CRD's annotations (its ObjectMeta validation), each naming the key. */
export function crdAnnotationProblems(crdAnnotations: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(crdAnnotations)) {
    if (!isQualifiedName(key)) problems.push(`crdAnnotations key "${key}" must be ${qualifiedNameRule}`);
    if (typeof value !== 'string') problems.push(`crdAnnotations["${key}"] must be a string`);
  }
  const size = annotationsSize(crdAnnotations);
  if (size > maxAnnotationsBytes)
    problems.push(`crdAnnotations add up to ${size} bytes, over the API server's limit of ${maxAnnotationsBytes}`);
  return problems;
}

/** The groups kube-apiserver keeps for APIs Kubernetes reviewed (the api-approved.kubernetes.io annotation). */
function isKubernetesGroup(group: string): boolean {
  return ['k8s.io', 'kubernetes.io'].some((domain) => group === domain || group.endsWith(`.${domain}`));
}
