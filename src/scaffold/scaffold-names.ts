import { crdNameProblems } from '../contract/crd-names.ts';

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

/**
 * The problems with a group, kind and plural, as sentences: defineContract's own name checks on every name the
 * project derives from them (the singular is the lowercased kind), so the contract init writes loads.
 */
export function scaffoldNameProblems(group: string, kind: string, plural: string): string[] {
  return crdNameProblems(scaffoldNames(group, kind, plural), []).map((problem) => {
    // Each problem starts with the field it names; a field with a flag of its own is named by the flag.
    const field = problem.slice(0, problem.indexOf(' '));
    return flagOf[field]
      ? `${flagOf[field]}${problem.slice(field.length)}`
      : `${problem} (derived from --kind and --plural)`;
  });
}

const flagOf: Readonly<Record<string, string>> = { group: '--group', kind: '--kind', plural: '--plural' };

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
