import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findFreePort } from './free-port.ts';

describe('findFreePort', () => {
  it('returns a port that can be bound on 127.0.0.1 right away', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    server.close();
    await once(server, 'close');
  });
});
