import type { CrdRevisionFinding } from '../finding.ts';
import type { EvidencePolicy } from '../rule-config.ts';
import { decidedByObjects } from '../rules.ts';
import { isPlainObject } from '../../contract/values/kube-object.ts';
import { asSchemaPath, pathsMeet } from '../schema/schema-path.ts';

/**
 * What the stored objects of a CRD showed under its new revision, as far as its rule findings are concerned: how
 * many were judged, whether they are all there are, and where the API server does something to one of them.
 */
export interface ObjectEvidence {
  objects: number;
  /**
   * Every object of the CRD was judged: a listing of the cluster that ended within its bounds (even with none),
   * or objects given as the cluster's (--stored, the old tree's manifests) of which there was at least one.
   */
  complete: boolean;
  /**
   * The fields an effect on some object is about: a value refused, dropped, changed or added on read, a write
   * refused for it; as schema paths (`spec.ports[*].name`), with the version read where it is known.
   */
  affected: Array<{ version?: string; path: string }>;
  /**
   * Some effect is about no field (a read refused, a write refused for the object as a whole) or could not be
   * seen (a conversion crdgate cannot run, an object it cannot read): no rule can then be said to affect nothing.
   */
  unplaced: boolean;
}

/**
 * The revision's findings weighed against its objects: where the objects are all known and none of them is
 * affected by a finding of error severity whose rule the objects decide (decidedByObjects), it is a warning that
 * says how many objects it affects none of. Findings the objects show an effect for stay errors, and so does
 * everything when the objects are not all known, an effect cannot be placed, or the policy is `rules`.
 */
export function weighRuleFindings(
  findings: readonly CrdRevisionFinding[],
  evidence: ObjectEvidence | undefined,
  policy: EvidencePolicy = 'objects',
): CrdRevisionFinding[] {
  if (policy === 'rules' || evidence === undefined || !evidence.complete || evidence.unplaced) return [...findings];
  return findings.map((finding) => {
    if (finding.severity !== 'error' || !decidedByObjects.has(finding.rule)) return finding;
    const path = placeOf(finding);
    const affected = evidence.affected.some(
      (effect) =>
        (effect.version === undefined || finding.version === undefined || effect.version === finding.version) &&
        pathsMeet(effect.path, path),
    );
    return affected ? finding : { ...finding, severity: 'warning', noObjectAffected: evidence.objects };
  });
}

/**
 * The field a finding is about: its path, or for a CEL rule with a fieldPath, the field the rule names (a rule at
 * the root that judges `.spec.owner` affects objects there, and its faults are reported there).
 */
export function placeOf(finding: CrdRevisionFinding): string {
  const path = finding.path ?? '';
  const rule = finding.new;
  if (!finding.rule.startsWith('validationRule') || !isPlainObject(rule) || typeof rule.fieldPath !== 'string')
    return path;
  const named = asSchemaPath(rule.fieldPath.replace(/^\./, '').replace(/\['([^']*)'\]/g, '.$1'));
  return path === '' ? named : `${path}.${named}`;
}
