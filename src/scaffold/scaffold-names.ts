import { isDns1123Label } from '../contract/schema/dns1123.ts';

/** Every name a scaffolded project derives from the kind and group it is for. */
export interface ScaffoldNames {
  group: string;
  /** UpperCamelCase: `Bucket`. */
  kind: string;
  /** Lowercase: `buckets`. */
  plural: string;
  /** Lowercase: `bucket`. */
  singular: string;
  /** For identifiers in the generated code: `bucket` (as in `bucketContract`). */
  camel: string;
  /** The npm package of the project and the repository of its image: `bucket-contract`. */
  project: string;
}

/** The problems with a group, kind and plural, as sentences (the same rules defineContract applies). */
export function scaffoldNameProblems(group: string, kind: string, plural: string): string[] {
  const problems: string[] = [];
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(group)) {
    problems.push(`--group "${group}" must be a DNS subdomain with at least one dot, like storage.example.com`);
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) problems.push(`--kind "${kind}" must be UpperCamelCase, like Bucket`);
  if (!isDns1123Label(plural)) problems.push(`--plural "${plural}" must be a lowercase DNS label, like buckets`);
  return problems;
}

export function scaffoldNames(group: string, kind: string, plural?: string): ScaffoldNames {
  const singular = kind.toLowerCase();
  return {
    group,
    kind,
    plural: plural ?? `${singular}s`,
    singular,
    camel: kind[0]!.toLowerCase() + kind.slice(1),
    project: `${singular}-contract`,
  };
}
