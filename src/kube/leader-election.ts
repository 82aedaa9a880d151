import type { Logger } from '../log.ts';
import { KubeApiError, logFieldsOf, type KubeApi } from './kube-api.ts';

// Leader election on a coordination.k8s.io Lease, as client-go's leaderelection does it: the holder renews the
// Lease; the others take it once it has gone unrenewed for its duration. Expiry is judged by when this process saw
// the Lease change, not by the renewTime written in it, so clocks that disagree between nodes do not matter.

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  /** Told when this process starts and stops leading. */
  onLeading: (leading: boolean) => void;
  logger: Logger;
  signal: AbortSignal;
}

export interface LeaderElection {
  /** Leading now: the Lease was renewed by this process recently enough that no other may have taken it. */
  isLeader(): boolean;
  /** Runs until the signal aborts, then gives the Lease up so that another replica takes over at once. */
  done: Promise<void>;
}

/** What one look at the Lease says this process may do. */
export function leaseAction(
  spec: LeaseSpec | undefined,
  identity: string,
  lastChangeSeenAt: number,
  now: number,
  leaseDurationMs: number,
): 'renew' | 'acquire' | 'wait' {
  if (spec?.holderIdentity === identity) return 'renew';
  if (!spec?.holderIdentity) return 'acquire';
  const durationMs = (spec.leaseDurationSeconds ?? leaseDurationMs / 1000) * 1000;
  return now - lastChangeSeenAt > durationMs ? 'acquire' : 'wait';
}

/** A Lease's MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function startLeaderElection(api: KubeApi, options: LeaderElectionOptions): LeaderElection {
  const { namespace, name, identity, leaseDurationMs, logger, signal } = options;
  const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`;
  // client-go's proportions: renew every 2/15 of the duration, give up leading after 2/3 of it without a renewal.
  const retryMs = Math.max(200, Math.round((leaseDurationMs * 2) / 15));
  const renewDeadlineMs = Math.round((leaseDurationMs * 2) / 3);
  let renewedAt = -Infinity;
  let leading = false;
  let observed = { key: '', seenAt: 0 };

  function setLeading(next: boolean, quietly = false): void {
    if (next === leading) return;
    leading = next;
    if (!quietly) logger.info({ lease: `${namespace}/${name}`, identity }, next ? 'became leader' : 'lost leadership');
    options.onLeading(next);
  }

  async function tryOnce(): Promise<void> {
    const now = Date.now();
    let lease: Lease | undefined;
    try {
      lease = (await api.request('GET', path, { signal })).body as Lease;
    } catch (error) {
      if (!(error instanceof KubeApiError && error.code === 404)) throw error;
    }
    const spec = lease?.spec;
    const key = `${spec?.holderIdentity ?? ''}|${spec?.renewTime ?? ''}`;
    if (key !== observed.key) observed = { key, seenAt: now };
    const action = leaseAction(spec, identity, observed.seenAt, now, leaseDurationMs);
    if (action === 'wait') return;
    const nowTime = microTime(now);
    const nextSpec: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: action === 'renew' && spec?.acquireTime ? spec.acquireTime : nowTime,
      renewTime: nowTime,
      leaseTransitions: (spec?.leaseTransitions ?? 0) + (action === 'acquire' && spec?.holderIdentity ? 1 : 0),
    };
    if (!lease) {
      // The rendered install ships the Lease, so that crdgate needs no right to create objects; a bare run may not.
      await api.request('POST', `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`, {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: nextSpec },
        signal,
      });
    } else {
      await api.request('PUT', path, {
        body: { ...lease, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', spec: nextSpec },
        signal,
      });
    }
    renewedAt = now;
    observed = { key: `${identity}|${nowTime}`, seenAt: now };
  }

  async function release(): Promise<void> {
    if (!leading) return;
    // Stopping is not losing: the line to watch for stays the one that means something went wrong.
    setLeading(false, true);
    try {
      const lease = (await api.request('GET', path)).body as Lease;
      if (lease.spec?.holderIdentity !== identity) return;
      await api.request('PUT', path, {
        body: { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 } },
      });
      logger.info({ lease: `${namespace}/${name}` }, 'gave up the lease');
    } catch (error) {
      logger.warn(
        { lease: `${namespace}/${name}`, ...logFieldsOf(error) },
        'cannot give up the lease: another replica takes it when it expires',
      );
    }
  }

  async function run(): Promise<void> {
    while (!signal.aborted) {
      try {
        await tryOnce();
      } catch (error) {
        if (signal.aborted) break;
        // A 409 means another replica wrote first: nothing is wrong, it leads.
        if (!(error instanceof KubeApiError && error.code === 409))
          logger.warn({ lease: `${namespace}/${name}`, ...logFieldsOf(error) }, 'cannot read or renew the lease');
      }
      setLeading(Date.now() - renewedAt < renewDeadlineMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryMs);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
    await release();
  }

  return {
    isLeader: () => leading && Date.now() - renewedAt < renewDeadlineMs,
    done: run(),
  };
}
