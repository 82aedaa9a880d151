import type { ReadOutcome, StoredObjectOutcome, WriteOutcome } from '../../../../src/crd-revision/objects/outcome.ts';
import { readDifferences } from '../../../../src/crd-revision/objects/read-differences.ts';
import { writeObservations } from './compare-outcomes.ts';

/**
 * One thing the API server does differently to a stored object once a revision is applied, against what it does
 * under the old revision (a baseline observation of the same object): a read or write refused that was answered,
 * a value gone, changed or added on read, a write answered that was refused.
 */
export interface ObjectEffect {
  /** `GET v1`, `PUT unchanged`, `PUT with a label`, `PUT one status value`, `PUT one spec value`, `delete and create`. */
  observation: string;
  kind: 'refused' | 'dropped' | 'changed' | 'defaulted' | 'accepted';
  /** The fields it is about, as the API server names them: the values that read differently, the refusal's causes. */
  paths: string[];
}

/** What breaks something that worked: a refusal, a value lost or read differently. A default added or a write now taken breaks nothing. */
export function isBreaking(effect: ObjectEffect): boolean {
  return effect.kind === 'refused' || effect.kind === 'dropped' || effect.kind === 'changed';
}

/**
 * Every effect the revision had on one object: its observation under the new revision against its observation under
 * the old one (same object, same reads, same writes). A version only the new revision serves, and a write one of
 * the two observations could not make (the field it changes is not there), are no effect.
 */
export function effectsOf(baseline: StoredObjectOutcome, revised: StoredObjectOutcome): ObjectEffect[] {
  const effects: ObjectEffect[] = [];
  for (const version of Object.keys(revised.reads).sort()) {
    effects.push(...readEffects(`GET ${version}`, baseline.reads[version], revised.reads[version]!));
  }
  for (const [observation, key] of writeObservations) {
    const [before, after] = [baseline[key], revised[key]];
    if (before === undefined || after === undefined || before.allowed === after.allowed) continue;
    effects.push(
      after.allowed
        ? { observation, kind: 'accepted', paths: [] }
        : { observation, kind: 'refused', paths: causeFields(after) },
    );
  }
  return effects;
}

function readEffects(observation: string, before: ReadOutcome | undefined, after: ReadOutcome): ObjectEffect[] {
  if (before === undefined) return [];
  if ('refused' in before) return 'refused' in after ? [] : [{ observation, kind: 'accepted', paths: [] }];
  if ('refused' in after) return [{ observation, kind: 'refused', paths: after.refused.causes.map((c) => c.field) }];
  const byKind = new Map<ObjectEffect['kind'], string[]>();
  for (const difference of readDifferences(before.object, after.object)) {
    const kind = !('new' in difference) ? 'dropped' : !('old' in difference) ? 'defaulted' : 'changed';
    byKind.set(kind, [...(byKind.get(kind) ?? []), difference.path]);
  }
  return [...byKind].map(([kind, paths]) => ({ observation, kind, paths }));
}

function causeFields(write: WriteOutcome): string[] {
  return write.allowed ? [] : write.refused.causes.map((cause) => cause.field).filter((field) => field !== '');
}
