import type {
  ReadOutcome,
  Refusal,
  StoredObjectOutcome,
  WriteOutcome,
} from '../../../../src/crd-revision/objects/outcome.ts';
import { storedDifferences } from '../differential/compare.ts';

/** One observation of one object where the API server and the prediction answered differently. */
export interface OutcomeDifference {
  /** `GET v1`, `PUT unchanged`, `PUT with a label`, `PUT one status value`, `PUT one spec value`, `delete and create`. */
  observation: string;
  apiServer: string;
  prediction: string;
}

/** Each write an outcome records, by the name of its observation. */
export const writeObservations = [
  ['PUT unchanged', 'unchangedWrite'],
  ['PUT with a label', 'labelWrite'],
  ['PUT one status value', 'statusWrite'],
  ['PUT one spec value', 'specWrite'],
  ['delete and create', 'recreate'],
] as const;

/** The observations an outcome holds: a GET per version, and the writes (a status and a spec write where made). */
export function observationsOf(outcome: StoredObjectOutcome): number {
  return Object.keys(outcome.reads).length + 3 + (outcome.statusWrite ? 1 : 0) + (outcome.specWrite ? 1 : 0);
}

/**
 * Every observation of one object where the two outcomes differ: a read or write allowed by one and refused by the
 * other; both refused with another HTTP code or other causes (each cause's field and type, as a set); both
 * answering an object, but another one (metadata compared too, without what the API server alone sets).
 */
export function outcomeDifferences(
  apiServer: StoredObjectOutcome,
  prediction: StoredObjectOutcome,
): OutcomeDifference[] {
  const differences: OutcomeDifference[] = [];
  for (const version of [...new Set([...Object.keys(apiServer.reads), ...Object.keys(prediction.reads)])].sort()) {
    const difference = answerDifference(apiServer.reads[version], prediction.reads[version]);
    if (difference) differences.push({ observation: `GET ${version}`, ...difference });
  }
  for (const [observation, key] of writeObservations) {
    const difference = answerDifference(apiServer[key], prediction[key]);
    if (difference) differences.push({ observation, ...difference });
  }
  return differences;
}

type Answer = ReadOutcome | WriteOutcome | undefined;

function answerDifference(
  apiServer: Answer,
  prediction: Answer,
): { apiServer: string; prediction: string } | undefined {
  const a = normalized(apiServer);
  const b = normalized(prediction);
  if (a.refused || b.refused || a.object === undefined || b.object === undefined) {
    return JSON.stringify(a) === JSON.stringify(b)
      ? undefined
      : { apiServer: JSON.stringify(a), prediction: JSON.stringify(b) };
  }
  // storedDifferences leaves out a top-level metadata; wrapped, the objects' own metadata is compared too.
  const paths = storedDifferences({ object: a.object }, { object: b.object });
  if (paths.length === 0) return undefined;
  const show = (side: 'apiServer' | 'crdgate') =>
    paths
      .map(
        (difference) =>
          `${difference.path.replace(/^object\.?/, '') || '(object)'}: ${JSON.stringify(difference[side])}`,
      )
      .join('; ');
  return { apiServer: show('apiServer'), prediction: show('crdgate') };
}

function normalized(answer: Answer): { refused?: Refusal; object?: unknown; missing?: true } {
  if (answer === undefined) return { missing: true };
  if ('refused' in answer && answer.refused)
    return {
      refused: {
        code: answer.refused.code,
        causes: [
          ...new Map(answer.refused.causes.map(({ field, type }) => [`${field} ${type}`, { field, type }])).values(),
        ].sort((x, y) => `${x.field} ${x.type}`.localeCompare(`${y.field} ${y.type}`)),
      },
    };
  return { object: 'object' in answer ? answer.object : (answer as { stored: unknown }).stored };
}
