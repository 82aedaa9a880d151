import { annotationsSize, maxAnnotationsBytes } from './annotations-size.ts';
import { dns1035LabelErrors, dns1123SubdomainErrors, isQualifiedName, qualifiedNameRule } from './values/dns-names.ts';
import { fieldInvalid, fieldRequired, formatFieldError, type FieldError } from './values/field-error.ts';

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

/**
 * The problems kube-apiserver would find with these names in a CRD, in its words and in its order
 * (k8s.io/apiextensions-apiserver's ValidateCustomResourceDefinition: the object's name, the group, the version names,
 * then ValidateCustomResourceDefinitionNames), each naming the CRD's field: a contract loads exactly when the API
 * server would take its CRD's names. Resource, version, short names and categories are DNS-1035 labels; the kind and
 * the list kind (by default the kind + `List`) are too once lowercased, so `postgresql`, `S3Bucket` and `my-kind`
 * are kinds it serves, and the two differ; the group is a DNS-1123 subdomain with a dot, outside Kubernetes' own
 * groups unless the CRD's annotations carry the API review's approval (as the Gateway API's do); the CRD's name
 * `plural.group` is a DNS-1123 subdomain. crdgate asks nothing more of a CRD it is given (fromCrd); what it writes
 * from scratch (`crdgate init --kind`) it also names UpperCamelCase (src/scaffold/scaffold-names.ts).
 */
export function crdNameProblems(
  names: CrdNames,
  versionNames: readonly string[],
  crdAnnotations?: Readonly<Record<string, string>>,
): string[] {
  const problems: FieldError[] = [];
  const invalid = (field: string, value: string, detail: string) =>
    problems.push(fieldInvalid(field, JSON.stringify(value), detail));
  const { group, kind, plural } = names;
  // As the API server defaults them (apiextensions.k8s.io/v1): an empty singular is the kind lowercased, an empty
  // list kind the kind + List.
  const singular = names.singular === '' ? kind.toLowerCase() : names.singular;
  const listKind = names.listKind === undefined || names.listKind === '' ? `${kind}List` : names.listKind;

  const crdName = `${plural}.${group}`;
  const crdNameErrors = dns1123SubdomainErrors(crdName);
  if (crdNameErrors.length > 0) invalid('metadata.name', crdName, crdNameErrors.join(','));
  const groupErrors = dns1123SubdomainErrors(group);
  if (group === '') problems.push(fieldRequired('spec.group'));
  else if (groupErrors.length > 0) invalid('spec.group', group, groupErrors.join(','));
  else if (!group.includes('.')) invalid('spec.group', group, 'should be a domain with at least one dot');
  versionNames.forEach((name, index) => {
    const errors = dns1035LabelErrors(name);
    if (errors.length > 0) invalid(`spec.versions[${index}].name`, name, errors.join(','));
  });
  // The API server keeps the first version's name as spec.version too (apiextensions' internal CRD), and says so.
  const firstVersionErrors = versionNames[0] === undefined ? [] : dns1035LabelErrors(versionNames[0]);
  if (firstVersionErrors.length > 0) invalid('spec.version', versionNames[0]!, firstVersionErrors.join(','));

  for (const [field, value] of [
    ['plural', plural],
    ['singular', singular],
    ['kind', kind],
    ['listKind', listKind],
  ] as const) {
    if (value === '') problems.push(fieldRequired(`spec.names.${field}`));
  }
  // An empty plural or singular is only Required (above); an empty short name or category is no label.
  const label = (field: string, value: string, required: boolean) => {
    const errors = dns1035LabelErrors(value);
    if ((value !== '' || !required) && errors.length > 0) invalid(field, value, errors.join(','));
  };
  // The kinds may have capitals: the API server holds them to the rule lowercased.
  const mixedCase = (field: string, value: string) => {
    const errors = dns1035LabelErrors(value.toLowerCase());
    if (value !== '' && errors.length > 0)
      invalid(field, value, `may have mixed case, but should otherwise match: ${errors.join(',')}`);
  };
  label('spec.names.plural', plural, true);
  label('spec.names.singular', singular, true);
  mixedCase('spec.names.kind', kind);
  mixedCase('spec.names.listKind', listKind);
  (names.shortNames ?? []).forEach((name, index) => label(`spec.names.shortNames[${index}]`, name, false));
  if (kind !== '' && kind === listKind)
    invalid('spec.names.listKind', listKind, 'kind and listKind may not be the same');
  (names.categories ?? []).forEach((name, index) => label(`spec.names.categories[${index}]`, name, false));

  const approval =
    groupErrors.length === 0 && isKubernetesGroup(group)
      ? apiApprovalProblem(crdAnnotations?.[apiApprovalAnnotation])
      : undefined;
  const approvalProblem =
    approval === undefined
      ? []
      : [
          `group "${group}" is Kubernetes' own (k8s.io, kubernetes.io): the API server wants an API review's approval for it, ` +
            `in the CRD annotation ${apiApprovalAnnotation} (crdAnnotations): ${approval}`,
        ];
  return [...problems.map(formatFieldError), ...approvalProblem];
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
