import { StopRequested } from '../abort/stop-signal.ts';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import { KubeApiError, type KubeApi } from './kube-api.ts';
import { liveReadFailure } from './live-read-error.ts';

// Every live object of a custom resource, read page by page for `crdgate check --from-cluster` and the CRD gate.
// Read-only (list, nothing else), rate-limited, and bounded in count and time: a cluster with a million objects
// must not make a CI job or an admission request wait for all of them. The caller is handed each page and keeps
// what it needs, so memory stays flat in the number of objects.

/** The custom resource to list, in one of its served versions; across every namespace when namespaced. */
export interface LiveResource {
  group: string;
  version: string;
  plural: string;
}

export interface LiveListBounds {
  /** Objects per list request. */
  pageSize: number;
  /** Past this many objects the list stops, and says so. */
  maxObjects: number;
  /** Past this many milliseconds the list stops (a request in flight is abandoned), and says so. */
  timeoutMs: number;
}

/** How a list ended: every object listed, or stopped at a bound with `listed` objects handed over. */
export type LiveListEnd =
  { complete: true; listed: number } | { complete: false; listed: number; stoppedBy: 'count' | 'time' };

export interface LiveListOptions extends LiveListBounds {
  /**
   * Taken before each request: a token bucket such as migrate's (createRateLimiter), resolving when a request may
   * go, rejecting with StopRequested when the signal aborts.
   */
  limiter?: { take(signal?: AbortSignal): Promise<void> };
  /** The caller's own stop (SIGTERM): rejects with StopRequested, unlike the time bound, which ends the list. */
  signal?: AbortSignal;
}

/** The resource to list: the old revision's group, plural and storage version (what the API server serves now). */
export function liveResourceOf(crd: unknown): LiveResource | undefined {
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : [];
  const storage = versions.find((version) => version.storage === true)?.name;
  if (typeof spec.group !== 'string' || typeof names.plural !== 'string' || typeof storage !== 'string')
    return undefined;
  return { group: spec.group, version: storage, plural: names.plural };
}

/** `/apis/GROUP/VERSION/PLURAL`: the objects of every namespace. */
export function liveCollectionPath(resource: LiveResource): string {
  const part = encodeURIComponent;
  return `/apis/${part(resource.group)}/${part(resource.version)}/${part(resource.plural)}`;
}

/** `PLURAL.GROUP`, the CRD's name, as an error names the resource. */
export function liveResourceName(resource: LiveResource): string {
  return `${resource.plural}.${resource.group}`;
}

/**
 * Lists every object of `resource` a page at a time, handing each page to `onPage` before the next is asked for,
 * until the last page or a bound. A continue token that expired (410) is followed by the one the server offers;
 * without one the list cannot go on without listing objects twice, and fails.
 */
export async function forEachLiveObject(
  api: KubeApi,
  resource: LiveResource,
  onPage: (objects: KubeObject[]) => void | Promise<void>,
  options: LiveListOptions,
): Promise<LiveListEnd> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const path = liveCollectionPath(resource);
  let listed = 0;
  let token: string | undefined;
  for (;;) {
    const limit = Math.min(options.pageSize, options.maxObjects - listed);
    let body: ListBody;
    try {
      await options.limiter?.take(signal);
      const answer = await api.request('GET', path, {
        query: { limit: String(limit), ...(token ? { continue: token } : {}) },
        signal,
      });
      body = (answer.body ?? {}) as ListBody;
    } catch (error) {
      if (error instanceof StopRequested || signal.aborted) {
        if (options.signal?.aborted) throw new StopRequested(`list ${liveResourceName(resource)}`);
        return { complete: false, listed, stoppedBy: 'time' };
      }
      if (error instanceof KubeApiError && error.code === 410 && error.continueToken) {
        token = error.continueToken;
        continue;
      }
      throw listFailure(api, resource, error);
    }
    const items = Array.isArray(body.items) ? body.items.slice(0, limit) : [];
    listed += items.length;
    await onPage(items);
    token = body.metadata?.continue || undefined;
    if (token === undefined) return { complete: true, listed };
    if (listed >= options.maxObjects) return { complete: false, listed, stoppedBy: 'count' };
    if (signal.aborted) {
      if (options.signal?.aborted) throw new StopRequested(`list ${liveResourceName(resource)}`);
      return { complete: false, listed, stoppedBy: 'time' };
    }
  }
}

interface ListBody {
  items?: KubeObject[];
  metadata?: { continue?: string };
}

function listFailure(api: KubeApi, resource: LiveResource, error: unknown): Error {
  const name = liveResourceName(resource);
  const permission = `list on ${name} in every namespace (crdgate manifests --crd-reads ${name} renders that ClusterRole)`;
  return liveReadFailure(`list ${name} (${api.server}${liveCollectionPath(resource)})`, permission, error);
}
