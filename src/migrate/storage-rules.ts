import { namespacedName } from '../contract/values/kube-object.ts';
import type { BrokenObject, RuleCause, StorageRulesReport } from './migration-report.ts';

// A write that leaves a field as it is passes the API server's validation ratcheting even when the stored value
// breaks the storage version's schema or rules: the migration's writes (and its dry run's) succeed, and nobody learns
// of such an object until an edit of that field is refused. The dry run judges each object as listed, in the storage
// version, against that version's schema and rules as they stand, and the report names those that break them.

/** Judges one object, as listed in the storage version: what the schema and rules refuse of it; none when it passes. */
export type JudgeObject = (object: unknown) => RuleCause[];

/** The judge of a CRD's objects, or why they cannot be judged (the engine is not there). */
export type ObjectRules = { judge: JudgeObject } | { notChecked: string };

/**
 * What the command hands the migration (src/migrate cannot load the API server engine): the judge of the objects of
 * the CRD as the run read it from the API server.
 */
export type StorageRulesJudge = (crd: unknown) => ObjectRules;

/** What the judge made of one object: its causes (none when it passes), or why it could not be judged. */
export type RulesVerdict = { causes: RuleCause[] } | { notJudged: string };

/** The objects listed: the first ones that break the rules; the rest are counted. */
export const MAX_BROKEN_LISTED = 20;
/** The causes listed per object: the first ones by field; the rest are counted. */
export const MAX_CAUSES_LISTED = 3;

/** Why a run that judged nothing says so. */
export const NOT_A_DRY_RUN = 'only a dry run (--dry-run) judges the objects against the rules';

interface ObjectName {
  namespace?: string;
  name: string;
}

/**
 * What the verdicts came to: every object judged and every one that breaks the rules counted, only the first
 * MAX_BROKEN_LISTED kept (each with its first MAX_CAUSES_LISTED causes), so that a run over a million objects holds
 * a few lines. The first verdict that could not be judged ends the judging: the report says the rules were not
 * checked past it, and why.
 */
export class StorageRulesTally {
  private judged = 0;
  private breaking = 0;
  private readonly listed: BrokenObject[] = [];
  private notChecked: string | undefined;

  constructor(notChecked?: string) {
    this.notChecked = notChecked;
  }

  /** Whether the next object is to be judged: not once the rules could not be checked. */
  get judging(): boolean {
    return this.notChecked === undefined;
  }

  add(object: ObjectName, verdict: RulesVerdict): void {
    if (!this.judging) return;
    if ('notJudged' in verdict) {
      this.notChecked = `the judging stopped at ${namespacedName(object)}, after ${this.judged} objects: ${verdict.notJudged}`;
      return;
    }
    this.judged++;
    if (verdict.causes.length === 0) return;
    this.breaking++;
    if (this.listed.length >= MAX_BROKEN_LISTED) return;
    this.listed.push({
      ...(object.namespace ? { namespace: object.namespace } : {}),
      name: object.name,
      causes: verdict.causes.slice(0, MAX_CAUSES_LISTED),
      moreCauses: Math.max(0, verdict.causes.length - MAX_CAUSES_LISTED),
    });
  }

  report(): StorageRulesReport {
    const counts = { judged: this.judged, breaking: this.breaking, objects: this.listed };
    return this.notChecked === undefined
      ? { checked: true, ...counts }
      : { checked: false, notChecked: this.notChecked, ...counts };
  }
}
