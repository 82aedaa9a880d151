import { crdNameProblems } from '../contract/crd-names.ts';

/** Every name a scaffolded project derives from the kind and group it is for. */
export interface ScaffoldNames {
  group: string;
  /** The kind as the CRD has it: `Bucket`, or an operator's `postgresql`. */
  kind: string;
  /** Lowercase: `buckets`. */
  plural: string;
  /** Lowercase: `bucket`. */
  singular: string;
  /** The kind as a TypeScript type name: `Bucket`, `Postgresql`, `MyBucket` for `my-bucket` (as in `BucketSpec`). */
  typeName: string;
  /** For identifiers in the generated code: `bucket`, `myBucket` (as in `bucketContract`). */
  camel: string;
  /** The npm package of the project and the repository of its image: `bucket-contract`. */
  project: string;
}

/** crdgate's own rule for a kind it writes from scratch (Kubernetes' API conventions); the API server asks less. */
const upperCamelCase = /^[A-Z][A-Za-z0-9]*$/;

/**
 * The problems with a group, kind and plural, as sentences: defineContract's own name checks on every name the
 * project derives from them (the singular is the lowercased kind), so the contract init writes loads, and the kind
 * UpperCamelCase, as Kubernetes' API conventions name a new kind. That last rule is crdgate's, for a kind it writes
 * from scratch only: a CRD someone else wrote (`init --from-crd`, fromCrd) keeps its kind as the API server takes it.
 */
export function scaffoldNameProblems(group: string, kind: string, plural: string): string[] {
  const style =
    kind === '' || upperCamelCase.test(kind)
      ? []
      : [
          `--kind "${kind}" must be UpperCamelCase, as Kubernetes' API conventions name a new kind ` +
            '(to guard an existing CRD whose kind is not, give it with --from-crd)',
        ];
  const apiServer = crdNameProblems(scaffoldNames(group, kind, plural), []).map((problem) => {
    // Each problem starts with the CRD's field it names (Kubernetes' own group, with the group); a field with a flag
    // of its own is named by the flag.
    if (problem.startsWith('group "')) return `--group ${problem.slice('group '.length)}`;
    const field = problem.slice(0, problem.indexOf(':'));
    return flagOf[field]
      ? `${flagOf[field]}${problem.slice(field.length)}`
      : `${problem} (derived from --kind and --plural)`;
  });
  return [...style, ...apiServer];
}

const flagOf: Readonly<Record<string, string>> = {
  'spec.group': '--group',
  'spec.names.kind': '--kind',
  'spec.names.plural': '--plural',
};

export function scaffoldNames(group: string, kind: string, plural?: string): ScaffoldNames {
  const singular = kind.toLowerCase();
  return {
    group,
    kind,
    plural: plural ?? `${singular}s`,
    singular,
    ...kindIdentifiers(kind),
    project: `${singular}-contract`,
  };
}

/**
 * The identifiers the generated code derives from a kind: the API server takes any kind that is a DNS-1035 label
 * once lowercased, so a kind starts with a letter and holds letters, digits and '-'. Each part between dashes
 * starts with a capital in the type name; the camel name is the type name with a small first letter.
 */
export function kindIdentifiers(kind: string): Pick<ScaffoldNames, 'typeName' | 'camel'> {
  const typeName = kind
    .split('-')
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return { typeName, camel: typeName === '' ? '' : typeName[0]!.toLowerCase() + typeName.slice(1) };
}
