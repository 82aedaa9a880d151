import { createStoredObjectsJudge } from '../../../../src/check/stored-objects.ts';
import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import { compareCrdRevisions } from '../../../../src/crd-revision/compare/compare-crd-revisions.ts';
import type { CrdRevisionFinding } from '../../../../src/crd-revision/finding.ts';
import { placeOf, weighRuleFindings } from '../../../../src/crd-revision/objects/evidence.ts';
import type { StoredObjectFinding } from '../../../../src/crd-revision/objects/stored-object-finding.ts';
import { decidedByObjects } from '../../../../src/crd-revision/rules.ts';
import { asSchemaPath, pathsMeet } from '../../../../src/crd-revision/schema/schema-path.ts';
import { effectsOf, isBreaking, type ObjectEffect } from './object-effects.ts';
import type { RevisionObservation } from './observe-revision.ts';

/** What `crdgate check -f NEW --old OLD --stored OBJECTS` reports of one revision: its rule findings and each object's. */
export interface CrdgateAnswer {
  /** The revision's rule findings, weighed against the objects (evidence: objects). */
  rules: CrdRevisionFinding[];
  /** Every stored-object finding, of each object by name, and those about the revision as a whole. */
  objects: Map<string, StoredObjectFinding[]>;
  revision: StoredObjectFinding[];
}

/**
 * crdgate's answer on a revision from the objects as stored under its old revision, through the very functions
 * `check --stored` runs (createStoredObjectsJudge, compareCrdRevisions, the objects' evidence), every finding kept.
 */
export function crdgateAnswer(old: unknown, now: unknown, stored: readonly KubeObject[]): CrdgateAnswer {
  const name = String((now as { metadata: { name: string } }).metadata.name);
  const judge = createStoredObjectsJudge([{ name, old, new: now }], { examples: Number.MAX_SAFE_INTEGER });
  for (const object of stored) judge.judge(object);
  const [crd] = judge.report().crds;
  judge.release();
  const objects = new Map<string, StoredObjectFinding[]>();
  const revision: StoredObjectFinding[] = [];
  for (const entry of crd?.findings ?? [])
    for (const finding of entry.examples) {
      if (finding.object === undefined) revision.push(finding);
      else objects.set(finding.object.name, [...(objects.get(finding.object.name) ?? []), finding]);
    }
  return { rules: weighRuleFindings(compareCrdRevisions(old, now), crd?.evidence), objects, revision };
}

/** The rules about a version no longer served: what they name is every object's read in it. */
const versionRules = new Set(['versionRemoval', 'versionUnserved', 'storedVersionRemoval']);

/** How crdgate's errors on one revision stand against what the API server did. */
export interface PairScore {
  id: string;
  objects: number;
  /** The API server refused the CRD update itself. */
  crdRefused: boolean;
  /** Objects with an effect that breaks something, and with any effect at all (a default added counts). */
  breakingObjects: number;
  effectObjects: number;
  /** Objects crdgate names an error on. */
  errorObjects: number;
  /** Objects with an error but no breaking effect, and with a breaking effect but no error: each with why. */
  errorWithoutEffect: string[];
  effectWithoutError: string[];
  /** Rule findings of error severity no effect is about (decidedByObjects) or, for the others, with nothing observed at all. */
  ruleErrors: number;
  ruleErrorsWithoutEffect: string[];
  /** The CRD update refused, and crdgate said nothing of error severity. */
  refusalMissed: boolean;
  effects: Map<string, ObjectEffect[]>;
}

/**
 * Scores crdgate's answer against what the API server did (each object observed under the new revision against
 * the same object under the old one: effectsOf). An object crdgate names an error on must have a breaking effect,
 * and every object with one must carry an error; a rule finding of error severity must be about a field some effect
 * is about, or, for a rule the objects do not decide (a version unserved, a name changed), come with some effect
 * or the CRD update refused.
 */
export function scorePair(
  id: string,
  baseline: RevisionObservation,
  revised: RevisionObservation,
  answer: CrdgateAnswer,
): PairScore {
  const before = new Map(baseline.outcomes.map((outcome) => [outcome.object.name, outcome]));
  const effects = new Map<string, ObjectEffect[]>();
  for (const outcome of revised.outcomes) {
    const old = before.get(outcome.object.name);
    if (old) effects.set(outcome.object.name, effectsOf(old, outcome));
  }
  const breaking = new Map([...effects].map(([name, found]) => [name, found.filter(isBreaking)]));
  const errorsOf = (name: string) => (answer.objects.get(name) ?? []).filter((finding) => finding.severity === 'error');
  const names = [...effects.keys()];
  const errorWithoutEffect = names
    .filter((name) => errorsOf(name).length > 0 && breaking.get(name)!.length === 0)
    .map((name) => `${name}: ${errorsOf(name)[0]!.message}`);
  // A read refused in a version the revision no longer serves is named by the revision's error about that version.
  const versionErrors = new Set(
    answer.rules
      .filter((finding) => finding.severity === 'error' && versionRules.has(finding.rule))
      .map((finding) => finding.version),
  );
  const named = (effect: ObjectEffect) => {
    const read = /^GET (.+)$/.exec(effect.observation);
    return read !== null && effect.kind === 'refused' && versionErrors.has(read[1]!);
  };
  const effectWithoutError = names
    .filter((name) => errorsOf(name).length === 0 && breaking.get(name)!.some((effect) => !named(effect)))
    .map((name) => `${name}: ${breaking.get(name)!.map(describeEffect).join('; ')}`);
  const crdRefused = revised.revisionRefused !== undefined;
  const allBreaking = [...breaking.values()].flat();
  const anyObserved = crdRefused || allBreaking.length > 0;
  const ruleErrors = answer.rules.filter((finding) => finding.severity === 'error');
  const unplaced = allBreaking.some((effect) => effect.paths.length === 0);
  const ruleErrorsWithoutEffect = ruleErrors
    .filter((finding) =>
      decidedByObjects.has(finding.rule) && !crdRefused
        ? !unplaced &&
          !allBreaking.some((effect) => effect.paths.some((path) => pathsMeet(asSchemaPath(path), placeOf(finding))))
        : !anyObserved,
    )
    .map((finding) => `${finding.rule}${finding.version ? ` (${finding.version})` : ''}: ${finding.message}`);
  const anyError =
    ruleErrors.length > 0 ||
    answer.revision.some((finding) => finding.severity === 'error') ||
    names.some((name) => errorsOf(name).length > 0);
  return {
    id,
    objects: names.length,
    crdRefused,
    breakingObjects: names.filter((name) => breaking.get(name)!.length > 0).length,
    effectObjects: names.filter((name) => effects.get(name)!.length > 0).length,
    errorObjects: names.filter((name) => errorsOf(name).length > 0).length,
    errorWithoutEffect,
    effectWithoutError,
    ruleErrors: ruleErrors.length,
    ruleErrorsWithoutEffect,
    refusalMissed: crdRefused && !anyError,
    effects,
  };
}

export function describeEffect(effect: ObjectEffect): string {
  return `${effect.observation} ${effect.kind}${effect.paths.length > 0 ? ` (${effect.paths.slice(0, 3).join(', ')})` : ''}`;
}
