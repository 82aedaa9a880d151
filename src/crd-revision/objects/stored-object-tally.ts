import type { StoredObjectFinding } from './stored-object-finding.ts';
import type { StoredObjectRule } from '../stored-object-rules.ts';

/** One rule's findings for one CRD: how many, and the first few in full. */
export interface TallyEntry {
  /** metadata.name of the CRD. */
  crd: string;
  rule: StoredObjectRule;
  severity: 'error' | 'warning';
  unseen?: true;
  count: number;
  examples: StoredObjectFinding[];
}

/**
 * Counts of findings per CRD and rule, with the first `examples` of each kept whole, and the objects judged per
 * CRD: what a report needs of any number of objects, in memory that does not grow with them.
 */
export interface StoredObjectTally {
  /** One object judged, with its findings (none when nothing happens to it). */
  addObject(crd: string, findings: readonly StoredObjectFinding[]): void;
  /** Findings about the revision as a whole, not counted as an object. */
  addRevision(crd: string, findings: readonly StoredObjectFinding[]): void;
  /** Objects judged per CRD, in the order the CRDs were first seen. */
  objects(): Array<{ crd: string; count: number }>;
  /** Every CRD and rule with a finding, in the order first found. */
  entries(): TallyEntry[];
  /** Whether any finding has error severity (the run fails). */
  failed(): boolean;
}

export function createStoredObjectTally(options: { examples?: number } = {}): StoredObjectTally {
  const keep = options.examples ?? 3;
  const objectCounts = new Map<string, number>();
  const entries = new Map<string, TallyEntry>();
  const add = (crd: string, findings: readonly StoredObjectFinding[]) => {
    for (const finding of findings) {
      const key = `${crd}\0${finding.rule}`;
      let entry = entries.get(key);
      if (entry === undefined) {
        entry = {
          crd,
          rule: finding.rule,
          severity: finding.severity,
          ...(finding.unseen ? { unseen: true as const } : {}),
          count: 0,
          examples: [],
        };
        entries.set(key, entry);
      }
      entry.count += 1;
      if (entry.examples.length < keep) entry.examples.push(finding);
    }
  };
  return {
    addObject(crd, findings) {
      objectCounts.set(crd, (objectCounts.get(crd) ?? 0) + 1);
      add(crd, findings);
    },
    addRevision(crd, findings) {
      if (!objectCounts.has(crd)) objectCounts.set(crd, 0);
      add(crd, findings);
    },
    objects: () => [...objectCounts].map(([crd, count]) => ({ crd, count })),
    entries: () => [...entries.values()],
    failed: () => [...entries.values()].some((entry) => entry.severity === 'error'),
  };
}
