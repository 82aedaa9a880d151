import type { ObjectEvidence } from '../crd-revision/objects/evidence.ts';

/**
 * What the gate learned from the live objects of the CRD being changed, for the decision. Plain data: the shell
 * reads and judges (bounded in count and time), the decision only weighs what came back.
 */
export type LiveObjectsReading =
  /**
   * Every live object was read and judged against the new revision: each finding with how many objects it holds
   * for, and what they showed for weighing the revision's rule findings (the CRD gate decides as `check` does).
   */
  | { read: 'judged'; objects: number; findings: LiveObjectFinding[]; evidence?: ObjectEvidence }
  /**
   * The objects were not (all) judged: a bound was passed, the list failed, or the server has no API client. The
   * revision is then decided on its own rules alone, and a warning says why.
   */
  | { read: 'not-judged'; why: string };

export interface LiveObjectFinding {
  /** The finding's stable id (what `crdgate check` reports for stored objects). */
  id: string;
  severity: 'error' | 'warning';
  /** How many live objects it holds for (for a finding about the revision as a whole, 1). */
  count: number;
  /** A finding about the revision as a whole (what the objects' CRD does with any of them), not about some objects. */
  revisionWide?: true;
  /** What it means, in a few words. */
  summary: string;
  /** The first object it holds for, as `namespace/name` with what happens to it. */
  example?: string;
}
