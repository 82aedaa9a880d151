import type { Logger } from '../log.ts';
import { KubeApiError, logFieldsOf, type KubeWatchApi } from './kube-api.ts';

export interface FollowOptions {
  /** The collection, e.g. /api/v1/namespaces/NS/secrets. */
  collectionPath: string;
  name: string;
  /** Called with the object each time it changes, and with undefined while it does not exist. */
  onChange: (object: Record<string, unknown> | undefined) => void;
  /** Every watch ends after this long and the object is listed again: a missed event cannot last. */
  resyncSeconds?: number;
  logger: Logger;
  signal: AbortSignal;
}

interface NamedList {
  metadata?: { resourceVersion?: string };
  items?: Record<string, unknown>[];
}

/**
 * Follows one named object: a list then a watch, both narrowed to the name by a field selector, so that RBAC's
 * resourceNames can limit the caller to this one object. Retries with backoff until the signal aborts.
 */
export async function followObject(api: KubeWatchApi, options: FollowOptions): Promise<void> {
  const { collectionPath, name, onChange, logger, signal } = options;
  const fieldSelector = `metadata.name=${name}`;
  const resyncSeconds = String(options.resyncSeconds ?? 300);
  let failures = 0;
  while (!signal.aborted) {
    try {
      const listed = (await api.request('GET', collectionPath, { query: { fieldSelector }, signal })).body as NamedList;
      onChange(listed.items?.[0]);
      let resourceVersion = listed.metadata?.resourceVersion ?? '';
      failures = 0;
      let expired = false;
      await api.watch(
        collectionPath,
        { fieldSelector, resourceVersion, timeoutSeconds: resyncSeconds, allowWatchBookmarks: 'true' },
        (event) => {
          const object = event.object as { metadata?: { resourceVersion?: string }; code?: number } | undefined;
          if (event.type === 'ERROR') {
            // 410 Gone: the resourceVersion is too old to watch from; the list that follows starts afresh.
            expired = true;
            return;
          }
          if (object?.metadata?.resourceVersion) resourceVersion = object.metadata.resourceVersion;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') onChange(object as Record<string, unknown>);
          else if (event.type === 'DELETED') onChange(undefined);
        },
        signal,
      );
      if (expired) logger.debug({ collectionPath, object: name }, 'watch expired: listing again');
    } catch (error) {
      if (signal.aborted) return;
      failures += 1;
      const delayMs = Math.min(1000 * 2 ** Math.min(failures - 1, 4), 15_000);
      const level = error instanceof KubeApiError && (error.code === 401 || error.code === 403) ? 'error' : 'warn';
      logger[level](
        { collectionPath, object: name, ...logFieldsOf(error), retryInMs: delayMs },
        'cannot follow the object: trying again',
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
