import {
  byDirection,
  compareNumbers,
  fieldClassifier,
  keyedListClassifier,
  readInteger,
  type Change,
  type Classifier,
  type UpdateRule,
} from '../../index.ts';

// Changes the machine allows that still cost something: read capacity goes away, a cache's data is deleted.
// The classifiers report the harmless direction too; only the kinds with a warning below are risky.

type Direction = 'replicas.fewer' | 'replicas.more' | 'cache.added' | 'cache.removed';

const classifiers: readonly Classifier<Direction>[] = [
  fieldClassifier({
    path: 'readReplicas',
    absentMeans: 0,
    read: readInteger,
    compare: byDirection({ compare: compareNumbers, increase: 'replicas.more', decrease: 'replicas.fewer' }),
  }),
  keyedListClassifier({
    path: 'caches',
    key: 'name',
    absentMeans: [],
    added: 'cache.added',
    removed: 'cache.removed',
    itemClassifiers: [],
  }),
];

const warningFor: Partial<Record<Direction, (change: Change<Direction>) => string>> = {
  'replicas.fewer': ({ field, from, to }) => `${field}: reducing read replicas from ${from} to ${to}`,
  'cache.removed': ({ field, item }) => `${field}: removing cache "${item}" deletes its data`,
};

/** The API server shows every warning to the user; past a handful they stop being read. */
export const maxRiskWarnings = 4;

/** Warnings, never refusals: the change is allowed, the user should just know what it costs. */
export const riskyChangeWarnings: UpdateRule = ({ oldObject, object }) => {
  const warnings = classifiers
    .flatMap((classifier) => classifier.classify(oldObject.spec, object.spec, { field: 'spec' }))
    .flatMap((change) => warningFor[change.kind]?.(change) ?? []);
  return { forbidden: [], warnings: capped(warnings), auditAnnotations: {} };
};

function capped(warnings: string[]): string[] {
  if (warnings.length <= maxRiskWarnings) return warnings;
  const shown = warnings.slice(0, maxRiskWarnings - 1);
  return [...shown, `and ${warnings.length - shown.length} more risky changes`];
}
