import type { ObjectEvidence } from './evidence.ts';
import { asSchemaPath } from '../schema/schema-path.ts';
import { storedObjectRules } from '../stored-object-rules.ts';
import type { StoredObjectFinding } from './stored-object-finding.ts';

/** Gathers what a CRD's objects show under its new revision, one object's findings at a time (memory flat in them). */
export interface EvidenceCollector {
  /** One object judged, with its findings as found (before any rule setting). */
  addObject(findings: readonly StoredObjectFinding[]): void;
  /**
   * Says whether the objects judged are all the CRD's (a listing of the cluster that ended within its bounds), even
   * none. Unsaid, they are all there are when there is at least one (objects given as the cluster's).
   */
  listed(complete: boolean): void;
  evidence(): ObjectEvidence;
}

/** The effects about no field that place nothing: a version unserved or removed is no schema rule's business. */
const aboutVersions = new Set(['readVersionUnserved', 'storedInRemovedVersion']);

export function createEvidenceCollector(): EvidenceCollector {
  let objects = 0;
  let complete: boolean | undefined;
  let unplaced = false;
  const affected = new Map<string, { version?: string; path: string }>();
  return {
    addObject(findings) {
      objects += 1;
      for (const finding of findings) {
        const rule: { severity: string; unseen?: true } = storedObjectRules[finding.rule];
        if (rule.unseen) {
          unplaced = true;
          continue;
        }
        if (rule.severity !== 'error' || aboutVersions.has(finding.rule)) continue;
        const paths = (finding.path ?? '').split(', ').filter((path) => path !== '');
        if (paths.length === 0 || finding.rule === 'objectUnreadable') unplaced = true;
        for (const path of paths.map(asSchemaPath)) {
          const key = `${finding.version ?? ''}\0${path}`;
          if (!affected.has(key))
            affected.set(key, { ...(finding.version === undefined ? {} : { version: finding.version }), path });
        }
      }
    },
    listed(all) {
      complete = all;
    },
    evidence: () => ({ objects, complete: complete ?? objects > 0, affected: [...affected.values()], unplaced }),
  };
}
