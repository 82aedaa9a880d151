import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ProvidedControlPlane } from '../../provided-context.ts';
import { kubectl } from '../kubectl.ts';
import { restClient, type Rest } from '../raw-api.ts';

/** Where a file of CRD revisions writes its objects: a namespace of the run's own and a REST client with many sockets. */
export interface RevisionScene {
  runId: string;
  namespace: string;
  /** The client, once the file's beforeAll has made it. */
  rest(): Rest;
}

/**
 * For one e2e file, called inside its describe: the namespace is created before the tests and deleted after them
 * (without waiting: no controller-manager runs to empty it), the client closed.
 */
export function useRevisionScene(cp: ProvidedControlPlane, prefix: string): RevisionScene {
  const runId = randomUUID().slice(0, 6);
  const namespace = `${prefix}-${runId}`;
  let client: Rest | undefined;
  beforeAll(async () => {
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
    client = restClient(cp.kubeconfigPath, { maxSockets: 32 });
  });
  afterAll(async () => {
    client?.close();
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
  });
  return {
    runId,
    namespace,
    rest: () => {
      if (client === undefined) throw new Error('the revision scene is not set up (is the call inside a describe?)');
      return client;
    },
  };
}
