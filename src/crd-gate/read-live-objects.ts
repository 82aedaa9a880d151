import { StopRequested } from '../abort/stop-signal.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { KubeApi } from '../kube/kube-api.ts';
import { forEachLiveObject, liveResourceOf, type LiveListBounds } from '../kube/list-live-objects.ts';
import { LiveReadError } from '../kube/live-read-error.ts';
import type { ObjectEvidence } from '../crd-revision/objects/evidence.ts';
import type { LiveObjectFinding, LiveObjectsReading } from './live-objects-reading.ts';

/** Judges live objects against a new revision a page at a time, and tallies what it found (memory flat in the objects). */
export interface LiveObjectJudge {
  judge(objects: KubeObject[]): void;
  findings(): LiveObjectFinding[];
  /** What the objects judged showed, once every one was listed (even none): for weighing the revision's rules. */
  evidence(): ObjectEvidence | undefined;
  /** Drops what it compiled from the engine: the gate judges one revision per request, for as long as it serves. */
  release(): void;
}

export interface LiveObjectReads {
  /** The API client; rejects when none can be made (no kubeconfig, no token). */
  api: () => Promise<KubeApi>;
  bounds: LiveListBounds;
  /** A judge of the objects stored under `oldCrd` against `newCrd`, or why there is none. */
  judgeFor: (oldCrd: KubeObject, newCrd: KubeObject) => LiveObjectJudge | { none: string };
}

/**
 * Reads every live object of the CRD within the bounds and judges it against the new revision. Never rejects but on
 * the caller's stop: whatever keeps the objects from being judged (a bound passed, a refused list, no client) comes
 * back as `not-judged` with why, and the gate decides on the revision's own rules.
 */
export async function readLiveObjects(
  reads: LiveObjectReads,
  oldCrd: KubeObject,
  newCrd: KubeObject,
  signal?: AbortSignal,
): Promise<LiveObjectsReading> {
  const resource = liveResourceOf(oldCrd);
  if (resource === undefined)
    return { read: 'not-judged', why: 'the old revision names no group, plural or storage version' };
  const judge = reads.judgeFor(oldCrd, newCrd);
  if ('none' in judge) return { read: 'not-judged', why: judge.none };
  try {
    return await judgeLiveObjects(reads, resource, judge, signal);
  } finally {
    judge.release();
  }
}

async function judgeLiveObjects(
  reads: LiveObjectReads,
  resource: NonNullable<ReturnType<typeof liveResourceOf>>,
  judge: LiveObjectJudge,
  signal?: AbortSignal,
): Promise<LiveObjectsReading> {
  let api: KubeApi;
  try {
    api = await reads.api();
  } catch (error) {
    return { read: 'not-judged', why: `crdgate has no API server client: ${(error as Error).message}` };
  }
  const { maxObjects, timeoutMs } = reads.bounds;
  try {
    const end = await forEachLiveObject(api, resource, (page) => judge.judge(page), {
      ...reads.bounds,
      ...(signal ? { signal } : {}),
    });
    if (!end.complete) {
      const bound =
        end.stoppedBy === 'count'
          ? `more than ${maxObjects} objects`
          : `not all read within ${timeoutMs / 1000} s (${end.listed} were)`;
      return { read: 'not-judged', why: `${bound}, the gate's bound` };
    }
    const evidence = judge.evidence();
    return {
      read: 'judged',
      objects: end.listed,
      findings: judge.findings(),
      ...(evidence === undefined ? {} : { evidence }),
    };
  } catch (error) {
    if (error instanceof StopRequested) throw error;
    if (error instanceof LiveReadError) return { read: 'not-judged', why: error.message };
    throw error;
  }
}
