import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serveParent } from './child-channel.ts';

/**
 * Listens on a free 127.0.0.1 port with crdgate's own timeouts (src/server/serve.ts), so a hand-built server under
 * test differs from crdgate only in what it is meant to, and hands the port to the parent.
 */
export async function serveOnLoopback(server: Server): Promise<void> {
  server.keepAliveTimeout = 120_000;
  server.requestTimeout = 30_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serveParent({
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
