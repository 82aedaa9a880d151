import type { CrdWithObjects } from './crd.ts';
import { generateRevisions, type CrdRevision, type KindWithoutSite } from './generate-revisions.ts';
import { inParallel } from './in-parallel.ts';
import { observeRevision, type RevisionObservation } from './observe-revision.ts';
import type { RevisionKind } from './revision-kinds.ts';
import type { Rest } from '../raw-api.ts';

export interface DifferentialRun {
  observations: RevisionObservation[];
  withoutSite: KindWithoutSite[];
  /** Revisions the observer could not carry out (the API server refused the old CRD, say), with the error. */
  failed: Array<{ revision: CrdRevision; error: string }>;
}

export interface RunOptions {
  namespace: string;
  /** Unique to the run: groups are `r<N>-<runId>.<group>`. */
  runId: string;
  label: { key: string; value: string };
  seed?: number;
  kinds?: readonly RevisionKind[];
  /** Revisions observed at a time (each installs a CRD of its own). */
  parallelRevisions?: number;
}

/** Generates every revision of every input and observes each on the API server, several at a time. */
export async function runDifferential(
  rest: Rest,
  inputs: readonly CrdWithObjects[],
  options: RunOptions,
): Promise<DifferentialRun> {
  const generated = inputs.map((input) =>
    generateRevisions(input, {
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.kinds ? { kinds: options.kinds } : {}),
    }),
  );
  const revisions = generated.flatMap((result) => result.revisions);
  const failed: DifferentialRun['failed'] = [];
  const observed = await inParallel(revisions, options.parallelRevisions ?? 6, async (revision, index) => {
    try {
      return await observeRevision(rest, revision, options.namespace, {
        groupPrefix: `r${index}-${options.runId}`,
        label: options.label,
      });
    } catch (error) {
      failed.push({ revision, error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  });
  return {
    observations: observed.filter((observation): observation is RevisionObservation => observation !== undefined),
    withoutSite: generated.flatMap((result) => result.withoutSite),
    failed,
  };
}
