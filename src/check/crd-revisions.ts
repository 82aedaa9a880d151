import { isPlainObject } from '../contract/values/kube-object.ts';
import { compareCrdRevisions } from '../crd-revision/compare/compare-crd-revisions.ts';
import type { CrdRevisionFinding } from '../crd-revision/finding.ts';
import type { RuleSettings } from '../crd-revision/rule-config.ts';
import type { EvidencePolicy } from '../crd-revision/rule-config.ts';
import { isCrdObject } from './crd-kinds.ts';
import type { ManifestContents, ManifestLocation, ManifestObject } from './manifest-documents.ts';

/** A CustomResourceDefinition both trees hold (by metadata.name), and what changed from the old one to the new. */
export interface CrdRevisionCheck {
  /** metadata.name: `plural.group` */
  name: string;
  location: ManifestLocation;
  oldLocation: ManifestLocation;
  findings: CrdRevisionFinding[];
  /**
   * `contract`: the CRDs two revisions of a contract render (`--contract` against `--old-contract`); the locations'
   * files are then the modules that declare them. Absent for a CRD both manifest trees hold.
   */
  from?: 'contract';
  /**
   * How the findings were weighed (weigh-crd-revisions.ts): against how many of its stored objects, all of them
   * known or not, and under which policy; absent when no object of it was judged (the rules alone decide).
   */
  evidence?: { objects: number; complete: boolean; policy: EvidencePolicy };
}

/**
 * Every CRD of the new tree that the previous revision holds too, compared with it, in the new tree's order. Of
 * a CRD a tree holds twice, its last copy counts: the one the API server would hold after applying the tree.
 */
export function compareTreeCrds(
  tree: ManifestContents,
  oldTree: ManifestContents,
  settings: RuleSettings,
): CrdRevisionCheck[] {
  const before = crdsByName(oldTree);
  return [...crdsByName(tree)].flatMap(([name, now]) => {
    const old = before.get(name);
    return old
      ? [
          {
            name,
            location: now.location,
            oldLocation: old.location,
            findings: compareCrdRevisions(old.object, now.object, settings),
          },
        ]
      : [];
  });
}

/** The CRDs among the objects by metadata.name, the last of a name counting (the one applied last). */
export function crdsByName(contents: { objects: readonly ManifestObject[] }): Map<string, ManifestObject> {
  const found = new Map<string, ManifestObject>();
  for (const entry of contents.objects) {
    const name = isPlainObject(entry.object.metadata) ? entry.object.metadata.name : undefined;
    if (isCrdObject(entry.object) && typeof name === 'string') {
      found.delete(name);
      found.set(name, entry);
    }
  }
  return found;
}
