import { KubeConfig, Watch } from '@kubernetes/client-node';
import { expectStatus, restClient } from './raw-api.ts';

export interface ObjectEvent {
  /** LISTED for what existed when recording began, then the watch's ADDED, MODIFIED, DELETED. */
  type: string;
  object: any;
}

export interface ObjectHistory {
  /** Every version of the object the API server stored since recording began, in order. */
  events(): readonly ObjectEvent[];
  stop(): void;
}

/**
 * Records every stored version of one named object from a list and a watch that starts at the list's
 * resourceVersion, so that no write in between is missed: what polling cannot show, such as two replicas each
 * filling a Secret once. `collectionPath` is the collection's API path, e.g. /api/v1/namespaces/NS/secrets.
 */
export async function recordObjectHistory(
  kubeconfigPath: string,
  collectionPath: string,
  name: string,
): Promise<ObjectHistory> {
  const events: ObjectEvent[] = [];
  const fieldSelector = `metadata.name=${name}`;
  const rest = restClient(kubeconfigPath);
  const listed = (
    await rest
      .send('GET', `${collectionPath}?fieldSelector=${encodeURIComponent(fieldSelector)}`)
      .then(expectStatus(200))
      .finally(() => rest.close())
  ).body as { items: any[]; metadata: { resourceVersion: string } };
  for (const item of listed.items) events.push({ type: 'LISTED', object: item });
  let resourceVersion = listed.metadata.resourceVersion;
  let stopped = false;
  let controller: AbortController | undefined;
  let failure: unknown;

  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const watch = new Watch(kubeConfig);
  const start = async (): Promise<void> => {
    controller = await watch.watch(
      collectionPath,
      { fieldSelector, resourceVersion, allowWatchBookmarks: true },
      (type, object) => {
        resourceVersion = object?.metadata?.resourceVersion ?? resourceVersion;
        if (type === 'BOOKMARK') return;
        if (type === 'ERROR') {
          failure = new Error(`watch of ${collectionPath}/${name} failed: ${JSON.stringify(object)}`);
          return;
        }
        events.push({ type, object });
      },
      // The API server ends a watch after a while; it goes on from the last version seen.
      () => {
        if (!stopped && failure === undefined) void start().catch((error: unknown) => (failure = error));
      },
    );
  };
  await start();
  return {
    events() {
      if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
      return events;
    },
    stop() {
      stopped = true;
      controller?.abort();
    },
  };
}
