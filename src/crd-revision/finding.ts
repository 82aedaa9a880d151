import type { CrdRevisionRule, Severity } from './rules.ts';

/**
 * One change between two revisions of a CRD, as a rule judges it. Plain JSON: reports print it, and the parts of
 * crdgate that judge stored objects against the revision start from it.
 */
export interface CrdRevisionFinding {
  rule: CrdRevisionRule;
  severity: Severity;
  /** The version whose schema, columns or fields changed; absent for what the CRD has once (names, scope...). */
  version?: string;
  /**
   * The field, as Kubernetes names fields in errors, with `[*]` for any list item or map value:
   * `spec.caches[*].memory`; '' is the root of the schema. Absent for a finding about no field.
   */
  path?: string;
  /** The value in the old revision (absent: none). */
  old?: unknown;
  /** The value in the new revision (absent: none). */
  new?: unknown;
  /** For a CEL rule: whether it is a transition rule (it reads oldSelf), so it judges updates only. */
  transition?: boolean;
  /**
   * For a difference between two served versions of the new revision: the older of the two (`version` is the
   * newer), and the rule that compares one version's revisions which found it (existingFieldRemoval, enum...).
   */
  comparedWith?: string;
  difference?: CrdRevisionRule;
  /**
   * Set when the objects decided the severity (evidence.ts): the finding's rule makes it an error, but none of
   * this many objects, all the objects known, is affected by it, so it is a warning.
   */
  noObjectAffected?: number;
  message: string;
}

/** A finding before its severity is known: a comparison says what changed, the rules and the config how bad it is. */
export type Change = Omit<CrdRevisionFinding, 'severity'>;
