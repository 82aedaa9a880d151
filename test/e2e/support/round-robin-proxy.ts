import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * What a Service and kube-proxy are to crdgate's replicas in a cluster, for replicas that run as processes on
 * 127.0.0.1: one address for the API server's webhook URL, each new TCP connection sent to the next replica whose
 * readiness probe last passed. Bytes are piped untouched, so TLS is between the API server and the replica: the
 * caBundle must trust whichever replica answers, as it must behind a real Service.
 */
export interface RoundRobinProxy {
  port: number;
  /** The replicas' ports: connections go only to these, and only to those whose last probe passed. */
  setBackends(ports: readonly number[]): void;
  /** How many connections each backend port has been given, for showing that both replicas were used. */
  connectionsByBackend(): Map<number, number>;
  /** The backends new connections go to now: those whose last probe passed, as a Service's ready endpoints. */
  routedBackends(): number[];
  /** Every change of a backend's probe result, in order: when a replica left the rotation, and came back. */
  readinessChanges(): readonly ReadinessChange[];
  close(): Promise<void>;
}

export interface ReadinessChange {
  port: number;
  ready: boolean;
  at: number;
}

export interface RoundRobinProxyOptions {
  /** The readiness probe: true when the replica on this port should receive new connections. */
  isReady(port: number): Promise<boolean>;
  /** How often each backend is probed. A kubelet probes every period seconds (at least 1); faster keeps tests short. */
  probeIntervalMs?: number;
}

export async function startRoundRobinProxy({
  isReady,
  probeIntervalMs = 250,
}: RoundRobinProxyOptions): Promise<RoundRobinProxy> {
  let backends: number[] = [];
  const ready = new Set<number>();
  const given = new Map<number, number>();
  const changes: ReadinessChange[] = [];
  const open = new Set<Socket>();
  let next = 0;

  // Like kube-proxy once the endpoint is gone: a connection that finds no ready replica is refused at once.
  const pick = (): number | undefined => {
    const candidates = backends.filter((port) => ready.has(port));
    if (candidates.length === 0) return undefined;
    return candidates[next++ % candidates.length];
  };

  const server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    const target = pick();
    if (target === undefined) {
      client.resetAndDestroy();
      return;
    }
    given.set(target, (given.get(target) ?? 0) + 1);
    const upstream = connect({ host: '127.0.0.1', port: target });
    open.add(upstream);
    upstream.once('close', () => open.delete(upstream));
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    // Either side's end or failure ends the other: a replica killed mid-connection looks, to the API server, like a
    // pod that died behind its Service.
    upstream.on('error', () => client.resetAndDestroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  // Each backend on its own schedule, so that one that hangs (a frozen process) does not hold up the others' probes.
  const inFlight = new Set<number>();
  const probe = (port: number): void => {
    inFlight.add(port);
    void isReady(port)
      .catch(() => false)
      .then((passed) => {
        inFlight.delete(port);
        // A backend removed while its probe ran stays removed.
        const nowReady = passed && backends.includes(port);
        if (nowReady !== ready.has(port)) changes.push({ port, ready: nowReady, at: Date.now() });
        if (nowReady) ready.add(port);
        else ready.delete(port);
      });
  };
  const probing = setInterval(() => {
    for (const port of backends) if (!inFlight.has(port)) probe(port);
  }, probeIntervalMs);

  return {
    port: (server.address() as AddressInfo).port,
    setBackends(ports) {
      backends = [...ports];
      for (const port of ready) if (!backends.includes(port)) ready.delete(port);
    },
    connectionsByBackend: () => new Map(given),
    routedBackends: () => backends.filter((port) => ready.has(port)),
    readinessChanges: () => changes,
    async close() {
      clearInterval(probing);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) socket.destroy();
      await stopped;
    },
  };
}
