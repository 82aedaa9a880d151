import { weighRuleFindings, type ObjectEvidence } from '../crd-revision/objects/evidence.ts';
import type { EvidencePolicy } from '../crd-revision/rule-config.ts';
import type { CrdRevisionCheck } from './crd-revisions.ts';
import type { StoredObjectsReport } from './stored-objects.ts';

/**
 * Each CRD revision's findings weighed against what its stored objects showed (weighRuleFindings): the objects of
 * every source judged against that revision (the old tree, the cluster, --stored) taken together. A revision none
 * of whose objects was judged keeps its findings as the rules set them.
 */
export function weighCrdRevisions(
  revisions: readonly CrdRevisionCheck[],
  stored: StoredObjectsReport | undefined,
  policy: EvidencePolicy,
): CrdRevisionCheck[] {
  return revisions.map((revision) => {
    const evidence = mergedEvidence(
      (stored?.crds ?? []).flatMap((crd) => (crd.name === revision.name && crd.evidence ? [crd.evidence] : [])),
    );
    if (evidence === undefined) return revision;
    return {
      ...revision,
      findings: weighRuleFindings(revision.findings, evidence, policy),
      evidence: { objects: evidence.objects, complete: evidence.complete, policy },
    };
  });
}

function mergedEvidence(all: readonly ObjectEvidence[]): ObjectEvidence | undefined {
  if (all.length === 0) return undefined;
  return {
    objects: all.reduce((sum, evidence) => sum + evidence.objects, 0),
    complete: all.some((evidence) => evidence.complete),
    affected: all.flatMap((evidence) => evidence.affected),
    unplaced: all.some((evidence) => evidence.unplaced),
  };
}
