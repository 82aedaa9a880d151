import { abortableSleep, StopRequested } from '../abort/stop-signal.ts';
import { KubeApiError, type KubeWatchApi } from './kube-api.ts';

/** Whether the object is being followed: listed and watched, or not (and why, and when the next try is). */
export type FollowState = { following: true } | { following: false; error: unknown; retryInMs: number };

export interface WatchNamedObjectOptions {
  /** The collection, e.g. /apis/apiextensions.k8s.io/v1/customresourcedefinitions. */
  collectionPath: string;
  name: string;
  /** The object as it is now: at each list, and at each change a watch reports; undefined while it does not exist. */
  onObject: (object: Record<string, unknown> | undefined) => void;
  /** Called when following starts or stops (a list or a watch was accepted; a call failed), not at every event. */
  onState: (state: FollowState) => void;
  signal: AbortSignal;
  /** How long the server keeps one watch open before ending it; the next one resumes from its resourceVersion. */
  watchTimeoutSeconds?: number;
  /** The wait after the n-th failure in a row (1-based); exponential from 1 s to 30 s unless given. */
  backoffMs?: (failures: number) => number;
  /** Waits `ms`, or rejects with StopRequested when the signal aborts; a test's fake clock can stand in for it. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

interface NamedList {
  metadata?: { resourceVersion?: string };
  items?: Record<string, unknown>[];
}

interface WatchedObject {
  metadata?: { resourceVersion?: string };
  /** On an ERROR event the object is a metav1.Status. */
  code?: number;
  message?: string;
}

const defaultBackoffMs = (failures: number) => Math.min(1000 * 2 ** Math.min(failures - 1, 5), 30_000);

/**
 * Follows one named object until the signal aborts: a list, then watches, both narrowed to the name by a field
 * selector (so that RBAC's resourceNames can limit the caller to that object: kube-apiserver authorizes a list or
 * watch against resourceNames only when the request names one object that way).
 *
 * A watch the server ends (its timeout) or that breaks (a lost connection, an API server restarting) is opened again
 * from the last resourceVersion seen, bookmarks included, so nothing in between is missed and nothing is read twice;
 * failures in a row wait longer each time. Only when that resourceVersion is too old to watch from (410 Gone, as an
 * ERROR event or as the answer) is the object listed again, at once: the list is the one way to learn what was missed.
 */
export async function watchNamedObject(api: KubeWatchApi, options: WatchNamedObjectOptions): Promise<void> {
  const { collectionPath, name, onObject, onState, signal } = options;
  const fieldSelector = `metadata.name=${name}`;
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const sleep = options.sleep ?? abortableSleep;
  const timeoutSeconds = String(options.watchTimeoutSeconds ?? 300);
  let following = false;
  const setFollowing = () => {
    if (following) return;
    following = true;
    onState({ following: true });
  };
  /** Undefined until listed, and again after a 410: the next round lists first. */
  let resourceVersion: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    try {
      if (resourceVersion === undefined) {
        const listed = (await api.request('GET', collectionPath, { query: { fieldSelector }, signal }))
          .body as NamedList;
        resourceVersion = listed.metadata?.resourceVersion ?? '';
        setFollowing();
        failures = 0;
        onObject(listed.items?.[0]);
      }
      let gone = false;
      let failed: WatchedObject | undefined;
      await api.watch(
        collectionPath,
        { fieldSelector, resourceVersion, timeoutSeconds, allowWatchBookmarks: 'true' },
        (event) => {
          const object = event.object as WatchedObject | undefined;
          if (event.type === 'ERROR') {
            if (object?.code === 410) gone = true;
            else failed = object ?? {};
            return;
          }
          if (object?.metadata?.resourceVersion) resourceVersion = object.metadata.resourceVersion;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') onObject(object as Record<string, unknown>);
          else if (event.type === 'DELETED') onObject(undefined);
        },
        signal,
        () => {
          setFollowing();
          failures = 0;
        },
      );
      if (gone) {
        resourceVersion = undefined;
        continue;
      }
      if (failed) throw new WatchErrorEvent(failed);
      // Ended by the server's timeout: resumed from resourceVersion at once.
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof KubeApiError && error.code === 410) {
        resourceVersion = undefined;
        continue;
      }
      failures += 1;
      const retryInMs = backoffMs(failures);
      following = false;
      onState({ following: false, error, retryInMs });
      // A stop during the wait ends the follow as a stop anywhere else does: quietly.
      await sleep(retryInMs, signal).catch((stopped: unknown) => {
        if (!(stopped instanceof StopRequested)) throw stopped;
      });
    }
  }
}

/** The API server ended a watch with an ERROR event other than 410 Gone (a metav1.Status). */
export class WatchErrorEvent extends Error {
  override name = 'WatchErrorEvent';
  readonly code: number | undefined;

  constructor(status: WatchedObject) {
    super(`the watch ended with an error${status.code ? ` (${status.code})` : ''}: ${status.message ?? 'no message'}`);
    this.code = status.code;
  }
}
