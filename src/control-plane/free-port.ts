import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: the OS picks it (port 0), we release it
 * and hand it to a child process. Another process could take it in between; envtest accepts the
 * same race, and a clash shows up as a clear start-up failure rather than a flaky test.
 */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
