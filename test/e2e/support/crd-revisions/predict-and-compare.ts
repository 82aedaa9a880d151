import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import {
  ConversionUnknownError,
  predictStoredObject,
  StoredObjectUnreadableError,
} from '../../../../src/crd-revision/objects/predict-stored-object.ts';
import { prepareCrdRevision, releaseCrdRevision } from '../../../../src/crd-revision/objects/revision-under-test.ts';
import { observationsOf, outcomeDifferences } from './compare-outcomes.ts';
import type { RevisionObservation } from './observe-revision.ts';
import type { RevisionKind } from './revision-kinds.ts';

/** Where the prediction and the API server differ: the revision, the object, the observation and both answers. */
export interface Difference {
  revision: string;
  change: string;
  object: string;
  observation: string;
  apiServer: string;
  prediction: string;
}

export interface DifferentialTally {
  revisions: number;
  objects: number;
  observations: number;
  agreedObjects: number;
  agreedObservations: number;
  /** Objects the prediction declined to answer for, saying why (a conversion it cannot run): counted apart, not compared. */
  unseen: Array<{ revision: string; object: string; reason: string }>;
  /** Objects the old revision refused to store, per revision: not part of the comparison. */
  notStored: number;
  /** Revisions the prediction could not be made for at all (the engine failed on a CRD): the test fails on any. */
  predictionFailures: Array<{ revision: string; change: string; error: string }>;
  byKind: Map<
    RevisionKind | 'release',
    { revisions: number; objects: number; observations: number; agreedObservations: number }
  >;
  /** The status and spec writes the API server was observed with, and how many of each it refused. */
  oneFieldWrites: { status: number; statusRefused: number; spec: number; specRefused: number };
  differences: Difference[];
}

/**
 * `crdgate check`'s prediction (predictStoredObject, from the object as stored under the old revision) for every
 * object the API server was observed with, compared observation by observation; and the CRD update itself: refused
 * by the API server exactly when the prediction says it is.
 */
export function predictAndCompare(observations: readonly RevisionObservation[]): DifferentialTally {
  const tally: DifferentialTally = {
    revisions: 0,
    objects: 0,
    observations: 0,
    agreedObjects: 0,
    agreedObservations: 0,
    unseen: [],
    notStored: 0,
    predictionFailures: [],
    byKind: new Map(),
    oneFieldWrites: { status: 0, statusRefused: 0, spec: 0, specRefused: 0 },
    differences: [],
  };
  for (const { revision, stored, notStored, revisionRefused, outcomes } of observations) {
    tally.revisions += 1;
    tally.notStored += notStored.length;
    const kind = tally.byKind.get(revision.kind) ?? {
      revisions: 0,
      objects: 0,
      observations: 0,
      agreedObservations: 0,
    };
    tally.byKind.set(revision.kind, kind);
    kind.revisions += 1;
    let prepared;
    try {
      prepared = prepareCrdRevision(revision.old, revision.new);
    } catch (error) {
      tally.predictionFailures.push({
        revision: revision.id,
        change: revision.change,
        error: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    const predictedRefusal = prepared.updateRefusal ? JSON.stringify(prepared.updateRefusal) : 'applied';
    const observedRefusal = revisionRefused ? JSON.stringify(revisionRefused) : 'applied';
    if (predictedRefusal !== observedRefusal)
      tally.differences.push({
        revision: revision.id,
        change: revision.change,
        object: '(the CRD)',
        observation: 'CRD update',
        apiServer: observedRefusal,
        prediction: predictedRefusal,
      });
    stored.forEach((object, index) => {
      const observed = outcomes[index]!;
      const name = objectName(object);
      let predicted;
      try {
        predicted = predictStoredObject(prepared, object);
      } catch (error) {
        if (!(error instanceof ConversionUnknownError || error instanceof StoredObjectUnreadableError)) throw error;
        tally.unseen.push({ revision: revision.id, object: name, reason: error.message });
        return;
      }
      const count = observationsOf(observed);
      const writes = tally.oneFieldWrites;
      if (observed.statusWrite) {
        writes.status += 1;
        if (!observed.statusWrite.allowed) writes.statusRefused += 1;
      }
      if (observed.specWrite) {
        writes.spec += 1;
        if (!observed.specWrite.allowed) writes.specRefused += 1;
      }
      const differences = outcomeDifferences(observed, predicted);
      tally.objects += 1;
      tally.observations += count;
      kind.objects += 1;
      kind.observations += count;
      const agreed = count - new Set(differences.map((difference) => difference.observation)).size;
      tally.agreedObservations += agreed;
      kind.agreedObservations += agreed;
      if (differences.length === 0) tally.agreedObjects += 1;
      tally.differences.push(
        ...differences.map((difference) => ({
          revision: revision.id,
          change: revision.change,
          object: name,
          ...difference,
        })),
      );
    });
    // Hundreds of revisions are compiled in one engine, whose memory only grows: each is dropped when compared.
    releaseCrdRevision(prepared);
  }
  return tally;
}

function objectName(object: KubeObject): string {
  const metadata = object.metadata ?? {};
  return `${String(object.kind)} ${metadata.namespace ? `${String(metadata.namespace)}/` : ''}${String(metadata.name)}`;
}

/** `312 of 312 objects, 1,248 of 1,248 observations` and the rest of the tally, for the test's output. */
export function describeTally(what: string, tally: DifferentialTally): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const lines = [
    `${what}: ${n(tally.revisions)} revisions; ${n(tally.agreedObjects)} of ${n(tally.objects)} objects, ${n(tally.agreedObservations)} of ${n(tally.observations)} observations as predicted` +
      `; ${n(tally.unseen.length)} objects the prediction says it cannot see (counted apart); ${n(tally.notStored)} objects the old revision refused to store`,
    `  status writes ${n(tally.oneFieldWrites.status)} (${n(tally.oneFieldWrites.statusRefused)} refused), spec writes ${n(tally.oneFieldWrites.spec)} (${n(tally.oneFieldWrites.specRefused)} refused)`,
    ...[...tally.byKind].map(
      ([kind, entry]) =>
        `  ${kind}: ${entry.revisions} revisions, ${entry.objects} objects, ${entry.agreedObservations} of ${entry.observations} observations`,
    ),
  ];
  return lines.join('\n');
}
