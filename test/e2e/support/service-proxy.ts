import { execFile } from 'node:child_process';
import { createConnection, createServer, type Socket } from 'node:net';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface ServiceProxy {
  /** Stops forwarding and takes the Service's ClusterIP off this machine again. */
  close: () => Promise<void>;
}

/**
 * kube-proxy's part for one Service port, which no cluster network does here: the Service's ClusterIP is put on the
 * loopback interface, and connections to it on the Service's port are forwarded to the pod's port on 127.0.0.1.
 * kube-apiserver calls a webhook that names a Service by its ClusterIP (its default service resolver) with the
 * Service's DNS name as the TLS server name, so what it reaches and what it verifies are what a cluster gives it.
 * Needs root (an address on an interface, a port below 1024).
 */
export async function proxyService(clusterIp: string, servicePort: number, podPort: number): Promise<ServiceProxy> {
  const onLoopback = (change: 'add' | 'del') => execFileAsync('ip', ['addr', change, `${clusterIp}/32`, 'dev', 'lo']);
  await onLoopback('add');
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const pod = createConnection({ host: '127.0.0.1', port: podPort });
    for (const socket of [client, pod]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      // A reset on one side ends the other, as a connection through kube-proxy's NAT would.
      socket.on('error', () => (socket === client ? pod : client).destroy());
    }
    client.pipe(pod).pipe(client);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(servicePort, clusterIp, () => resolve());
    });
  } catch (error) {
    await onLoopback('del');
    throw error;
  }
  return {
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await onLoopback('del');
    },
  };
}
