import type { StoredObjectRef } from './outcome.ts';
import { storedObjectRules, type StoredObjectRule } from '../stored-object-rules.ts';

/**
 * One finding about the objects a CRD stores under a new revision: about one object (`object` set), or about the
 * revision as a whole. Plain JSON, like the revision's own findings (CrdRevisionFinding).
 */
export interface StoredObjectFinding {
  rule: StoredObjectRule;
  severity: 'error' | 'warning';
  /** Set when the finding depends on what crdgate cannot see (storedObjectRules). */
  unseen?: true;
  object?: StoredObjectRef;
  /** The version the finding is about: the one read, or the one removed. */
  version?: string;
  /** The field, as the API server names fields in errors (`spec.quota`, `spec.forwardTo[1]`). */
  path?: string;
  old?: unknown;
  new?: unknown;
  /** For a value the revision refuses: the keyword or rule that refuses it (enum, required, x-kubernetes-validations...). */
  keyword?: string;
  /** For a value the revision refuses: what a write must change to be refused (ratcheting spares the rest). */
  unit?: string;
  message: string;
}

/** A finding of `rule`, with the rule's severity and unseen mark. */
export function storedObjectFinding(
  rule: StoredObjectRule,
  message: string,
  details: Omit<StoredObjectFinding, 'rule' | 'severity' | 'unseen' | 'message'> = {},
): StoredObjectFinding {
  const definition: { severity: 'error' | 'warning'; unseen?: true } = storedObjectRules[rule];
  const defined = Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined));
  return {
    rule,
    severity: definition.severity,
    ...(definition.unseen ? { unseen: true as const } : {}),
    ...defined,
    message,
  };
}
